package validate

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// numberAsDuration turns the CRD's type error for a duration written as a bare
// number (`idleTimeout: 30`) into the kind's duration finding, which says how to
// write it ("30s"): the API server refuses the object either way, but "must be of
// type string" does not tell a user that a duration needs a unit. The type error
// is replaced, not repeated, so one mistake stays one finding.
func (v *validator) numberAsDuration(p *field.Path, kind, code string) {
	at := p.String()
	for _, e := range v.res.Errors {
		if e.Origin != api.CodeWrongType || e.Field != at || !strings.Contains(e.Detail, "must be of type string") {
			continue
		}
		raw, n, ok := v.rawNumberAt(at)
		if !ok {
			return
		}
		e.Origin = code
		e.Type = field.ErrorTypeInvalid
		e.BadValue = raw
		e.Detail = fmt.Sprintf("%s reads a duration as a string with a unit, not a bare number; write %q (seconds), or e.g. 500ms, 1m30s", kind, n+"s")
		return
	}
}

// rawNumberAt returns the number the raw spec holds at a path such as
// "spec.to[0].default.idleTimeout", and its text as written (30, 1.5).
func (v *validator) rawNumberAt(path string) (any, string, bool) {
	rest, ok := strings.CutPrefix(path, "spec")
	if !ok {
		return nil, "", false
	}
	var cur any = v.spec
	for rest != "" {
		var step string
		switch rest[0] {
		case '.':
			rest = rest[1:]
			i := strings.IndexAny(rest, ".[")
			if i < 0 {
				i = len(rest)
			}
			step, rest = rest[:i], rest[i:]
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, "", false
			}
			cur = m[step]
		case '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, "", false
			}
			idx, err := strconv.Atoi(rest[1:end])
			l, ok := cur.([]any)
			if err != nil || !ok || idx < 0 || idx >= len(l) {
				return nil, "", false
			}
			cur, rest = l[idx], rest[end+1:]
		default:
			return nil, "", false
		}
	}
	switch n := cur.(type) {
	case int64:
		return n, strconv.FormatInt(n, 10), true
	case int:
		return n, strconv.Itoa(n), true
	case float64:
		return n, strconv.FormatFloat(n, 'f', -1, 64), true
	}
	return nil, "", false
}
