package kumaauthz

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// MG202 says that a group of proxies denies every client. Two things keep it
// true (issue 26):
//
//   - A deny-by-default baseline is not a finding: a mesh- or namespace-wide
//     policy (top-level targetRef Mesh) that denies everyone while later, more
//     specific policies of the set open some of its proxies is how Kuma's
//     SPIFFE-matches MADR (user story 1) and the MeshTrafficPermission docs
//     recommend starting. Only when nothing in the set opens it is it reported.
//   - Any other group that denies everyone is reported for the proxies the
//     statement holds for: its scope, except the more specific groups of the set
//     that let some client in.
//
// And the linted set may not be all the policies of the mesh (a lint of one
// file): the message says the proxies deny every client unless policies outside
// the set open them, instead of stating it as a fact.

// denyAllDetail is MG202's message for the proxies of scope.
func denyAllDetail(scope, reason string) string {
	return scope + " deny every client, unless policies outside this set open them: " + reason
}

// groupFindings are one group's findings, with what the baseline rule needs:
// its target and whether a policy of the group allows some client (asked only
// of the groups inside a deny-all one: lazily).
type groupFindings struct {
	t      Target
	errs   field.ErrorList
	allows func() bool
}

// opens reports whether the group lets some client in: its merged list is not
// deny-all and some policy of it has an allowing item or matcher.
func (g groupFindings) opens() bool {
	return denyAllIndex(g.errs) < 0 && g.allows()
}

// policyAllows reports whether p has a `from` item whose action allows, or an
// allow or allowWithShadowDeny matcher.
func policyAllows(p *Policy) bool {
	for _, f := range p.Spec.From {
		if a, err := ParseAction(f.Default.Action); err == nil && a.Allows() {
			return true
		}
	}
	if p.IsRulesForm() {
		for _, e := range SpiffeEntries(*p) {
			if e.List != ListDeny {
				return true
			}
		}
	}
	return false
}

// anyAllows is policyAllows of some policy of ps.
func anyAllows(ps []Policy) func() bool {
	return func() bool {
		for i := range ps {
			if policyAllows(&ps[i]) {
				return true
			}
		}
		return false
	}
}

func denyAllIndex(errs field.ErrorList) int {
	for i, e := range errs {
		if e.Origin == CodeDenyAll {
			return i
		}
	}
	return -1
}

// maxExcept bounds the groups an MG202 message names as exceptions.
const maxExcept = 3

// baselines applies the baseline rule to the groups' findings (see above) and
// returns them all, in group order.
func baselines(gs []groupFindings) field.ErrorList {
	var out field.ErrorList
	for i := range gs {
		out = append(out, baseline(gs, i)...)
	}
	return out
}

// baseline is group i's findings with the baseline rule applied.
func baseline(gs []groupFindings, i int) field.ErrorList {
	g := gs[i]
	d := denyAllIndex(g.errs)
	if d < 0 {
		return g.errs
	}
	var except []string
	for j, h := range gs {
		if j != i && h.t.key() != g.t.key() && Applies(g.t, h.t) && h.opens() && !slices.Contains(except, h.t.Scope()) {
			except = append(except, h.t.Scope())
		}
	}
	errs := g.errs
	switch {
	case len(except) == 0:
	case g.t.Kind == api.RefMesh || g.t.Kind == "":
		errs = append(errs[:d:d], errs[d+1:]...) // a deny-by-default baseline
	default:
		e := *errs[d]
		scope := g.t.Scope()
		e.Detail = scope + ", except " + exceptWords(except) + "," + strings.TrimPrefix(e.Detail, scope)
		errs = append(append(errs[:d:d], &e), errs[d+1:]...)
	}
	return errs
}

// previewBaselines applies the baseline rule to the findings of previews,
// whose groups (the preview's Target) are gs.
func previewBaselines(pvs []Preview, groups map[string][]Policy) {
	gs := make([]groupFindings, len(pvs))
	for i, pv := range pvs {
		gs[i] = groupFindings{t: pv.Target, errs: pv.Findings, allows: anyAllows(groups[pv.Target.key()])}
	}
	for i := range pvs {
		if denyAllIndex(pvs[i].Findings) >= 0 {
			pvs[i].Findings = baseline(gs, i)
		}
	}
}

// exceptWords names up to maxExcept groups and counts the rest.
func exceptWords(scopes []string) string {
	if len(scopes) <= maxExcept {
		return strings.Join(scopes, "; ")
	}
	return strings.Join(scopes[:maxExcept], "; ") + fmt.Sprintf(" and %d more groups", len(scopes)-maxExcept)
}
