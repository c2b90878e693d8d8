package kumaauthz

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// Stable codes of the findings the compiler makes possible. They are warnings: the
// configuration is valid, it just does not do what its author most likely meant.
const (
	CodeDeadItem = "MG201"
	CodeDenyAll  = "MG202"
	CodeAllowAll = "MG203"
)

// finding builds a warning. Field is the path inside the policy the finding is
// about and BadValue is that policy's Ref ("ns/name"), so a caller reviewing one
// object can keep the findings that are about it.
func finding(code, policy, path, detail string) *field.Error {
	return (&field.Error{Type: field.ErrorTypeInvalid, Field: path, BadValue: policy, Detail: detail}).WithOrigin(code)
}

// Analyze reports what the merged configuration of one group makes visible:
// MG201 items that never decide (reported in the group of their own policy's
// target, the least specific group they are in: dead there means dead everywhere),
// MG202 a group whose proxies deny every client, MG203 an allow-all at mesh level.
func Analyze(g Group, systemNamespace string) field.ErrorList {
	var out field.ErrorList
	own := map[string]bool{}
	gk := g.Target.key()
	for _, p := range g.Policies {
		own[p.Ref()] = TargetOf(p, systemNamespace).key() == gk
	}
	if usesMatchers(g.Policies) {
		return append(out, analyzeMatchers(g, own)...)
	}
	items := MergeFrom(g.Policies)
	cs, err := toItems(items, g.Target.Mesh)
	return analyzeFrom(g, own, "", nil, items, cs, err)
}

// analyzeFrom is Analyze for `from` groups, given what it derives from the group:
// own (see Analyze), g.Target.Scope() and the policies' Refs ("" and nil: compute
// them), the merged list and toItems' result for it.
func analyzeFrom(g Group, own map[string]bool, scope string, refNames []string, items []MergedItem, cs []cItem, err error) field.ErrorList {
	var out field.ErrorList
	if err != nil || len(cs) == 0 {
		return out
	}
	scopeOf := func() string {
		if scope == "" {
			scope = g.Target.Scope()
		}
		return scope
	}
	for i, it := range cs {
		if !own[items[i].Policy] {
			continue
		}
		for j := len(cs) - 1; j > i; j-- {
			if covers(cs[j], it) {
				out = append(out, finding(CodeDeadItem, items[i].Policy, items[i].Path(),
					"this item never decides for "+scopeOf()+": every client it matches also matches the later item "+
						items[j].Policy+" "+items[j].Path()+" ("+cs[j].action.String()+"), and the last matching item wins"))
				break
			}
		}
	}
	if !allowsAnyone(cs) {
		var names, last string
		if refNames != nil {
			names, last = joinRefs(refNames), refNames[len(refNames)-1]
		} else {
			names, last = refs(g.Policies), g.Policies[len(g.Policies)-1].Ref()
		}
		out = append(out, finding(CodeDenyAll, last, "spec.from",
			denyAllDetail(scopeOf(), "no ALLOW item of "+names+" is left once later DENY items are applied")))
	}
	if g.Target.Kind == api.RefMesh && g.Target.Namespace == "" {
		for i, it := range items {
			if own[it.Policy] && it.From.TargetRef.Kind == api.RefMesh && (it.From.TargetRef.Mesh == "" || it.From.TargetRef.Mesh == g.Target.Mesh) && cs[i].action.Allows() {
				out = append(out, finding(CodeAllowAll, it.Policy, it.Path(),
					"every client in mesh "+g.Target.Mesh+" may reach every proxy of the mesh (action "+cs[i].action.String()+
						"); allow the clients that need access instead"))
			}
		}
	}
	return out
}

// usesMatchers reports whether the group is compiled to the SPIFFE-matches MADR's matcher tree.
func usesMatchers(ps []Policy) bool {
	for _, p := range ps {
		if p.IsRulesForm() {
			return true
		}
	}
	return false
}

// analyzeMatchers is Analyze for SPIFFE-matcher groups: an allow entry is dead when
// a deny entry without HTTP conditions covers its SPIFFE ID (deny is evaluated
// first); the group denies everything when no allow entry is left.
func analyzeMatchers(g Group, own map[string]bool) field.ErrorList {
	var all []SpiffeEntry
	for _, p := range g.Policies {
		all = append(all, SpiffeEntries(p)...)
	}
	return matcherFindings(g.Target, all, func(ref string) bool { return own[ref] }, len(g.Policies) > 0, func() (string, string) {
		return g.Policies[len(g.Policies)-1].Ref(), refs(g.Policies)
	})
}

// matcherFindings is analyzeMatchers given the group's SPIFFE entries in merge
// order, whether a Ref is the group's own, whether the group has policies, and the
// Ref of its last policy with the words naming all of them (for MG202).
func matcherFindings(t Target, all []SpiffeEntry, own func(string) bool, hasPolicies bool, names func() (last, all string)) field.ErrorList {
	var out field.ErrorList
	alive := 0
	for _, e := range all {
		if e.List == ListDeny {
			continue
		}
		if e.empty() {
			if own(e.Policy) {
				out = append(out, finding(CodeDeadItem, e.Policy, e.Path, fmt.Sprintf(
					"this matcher never allows anything for %s: it has neither spiffeID nor sni, and Kuma programs no condition for it", t.Scope())))
			}
			continue
		}
		var by *SpiffeEntry
		for k := range all {
			if d := all[k]; d.List == ListDeny && !d.http() && !d.empty() && matchCovers(d.Match, e.Match) {
				by = &all[k]
				break
			}
		}
		if by == nil {
			alive++
			continue
		}
		if own(e.Policy) {
			out = append(out, finding(CodeDeadItem, e.Policy, e.Path, fmt.Sprintf(
				"this matcher never allows anything for %s: the deny matcher %s %s covers it and deny matchers are evaluated first",
				t.Scope(), by.Policy, by.Path)))
		}
	}
	if alive == 0 && hasPolicies {
		last, list := names()
		out = append(out, finding(CodeDenyAll, last, "spec",
			denyAllDetail(t.Scope(), list+" leave no allow matcher that a deny matcher does not cover")))
	}
	return out
}

// matchCovers reports whether every request matched by inner is matched by outer
// (ignoring HTTP conditions): outer's spiffeID covers inner's and outer's sni, when
// set, is inner's. Neither may be empty (an empty matcher matches nothing).
func matchCovers(outer, inner api.SpiffeMatch) bool {
	o, _ := outer.Spiffe()
	i, _ := inner.Spiffe()
	if !stringMatchCovers(o, i) {
		return false
	}
	return outer.SNI == nil || inner.SNI != nil && inner.SNI.Value == outer.SNI.Value
}

// stringMatchCovers is spiffeCovers on the SPIFFE ID matches (nil: any identity).
func stringMatchCovers(o, i *api.StringMatch) bool {
	if o == nil {
		return true
	}
	if i == nil {
		return false
	}
	switch o.Type {
	case "Prefix":
		return strings.HasPrefix(i.Value, o.Value)
	case "Exact", "":
		return (i.Type == "Exact" || i.Type == "") && i.Value == o.Value
	}
	return false
}

// allowsAnyone reports whether compact(cs, Action.Allows, ...) has a principal:
// whether some ALLOW item is not covered by a later overlapping DENY item. It
// makes the same decisions as compact without building principals.
func allowsAnyone(cs []cItem) bool {
	for i, it := range cs {
		if !it.action.Allows() {
			continue
		}
		dead := false
		for _, later := range cs[i+1:] {
			if later.action.Allows() || !overlaps(it, later) {
				continue
			}
			if covers(later, it) {
				dead = true
				break
			}
		}
		if !dead {
			return true
		}
	}
	return false
}

func refs(ps []Policy) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Ref()
	}
	return joinRefs(names)
}

// joinRefs is refs given the policies' Refs.
func joinRefs(names []string) string {
	if len(names) == 1 {
		return "policy " + names[0]
	}
	return "policies " + strings.Join(names, ", ")
}
