package lint

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/meshguard/meshguard/compile"
	"github.com/meshguard/meshguard/refs"
	"github.com/meshguard/meshguard/validate"
)

// Rules is the full catalogue of codes meshguard reports: the validation rules plus
// compile's RBAC analysis, ordered by code number so MG201 (analysis) comes before
// MG301 (Linkerd). `meshguard rules`, docs/rules.md and the SARIF rule table all
// read this one list, so a new code is documented everywhere at once.
func Rules() []validate.RuleDoc {
	rules := slices.Concat(validate.Catalogue(), compile.Catalogue(), refs.Catalogue())
	slices.SortStableFunc(rules, func(a, b validate.RuleDoc) int {
		return cmp.Or(cmp.Compare(CodeNumber(a.Code), CodeNumber(b.Code)), cmp.Compare(a.Code, b.Code))
	})
	return rules
}

// CodeNumber is the number of a code such as MG201; -1 when it has none, so a
// malformed code sorts first where a test sees it.
func CodeNumber(code string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(code, "MG"))
	if err != nil {
		return -1
	}
	return n
}
