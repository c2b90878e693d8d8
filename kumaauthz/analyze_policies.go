package kumaauthz

import (
	"cmp"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// AnalyzePolicies runs Analyze over every group of ps and returns the same
// findings in the same order, without building every group's merged list: the
// policies that target the whole mesh are analysed once per layer they form (see
// layers.go), and so are the policies of every other target, once per target.
// Lint runs it over every MeshTrafficPermission of a repository, where thousands
// can select the same proxies.
func AnalyzePolicies(ps []Policy, systemNamespace string) field.ErrorList {
	a := newAnalysis(ps, systemNamespace)
	gs := make([]groupFindings, len(a.targets))
	for i, kt := range a.targets {
		gs[i] = groupFindings{t: kt.t, errs: a.group(kt), allows: func() bool { return a.groupAllows(kt) }}
	}
	return baselines(gs)
}

// groupAllows reports whether some policy of group kt allows some client.
func (a *analysis) groupAllows(kt keyedTarget) bool {
	for _, l := range a.members(kt) {
		for _, p := range l.pols {
			if policyAllows(&a.ps[p.in]) {
				return true
			}
		}
	}
	return false
}

// analysis holds the policies of AnalyzePolicies and their indexes.
type analysis struct {
	ps      []Policy
	pols    []aPolicy
	byOrd   []*aPolicy
	targets []keyedTarget
	// layers are the kind-rank-0 policies by mesh, namespace and zone.
	layers map[[3]string]*layer
	// keyLayers are the other policies by target key: all of a key's policies
	// apply to the same groups, so each key is one layer, built once.
	keyLayers map[string]*layer
	// bySel are the target keys of the proxy-selecting ones among them by mesh,
	// namespace and selector; byScope by mesh and namespace (for selectors too
	// large to enumerate).
	bySel   map[string][]string
	byScope map[[2]string][]string
	// byKey are all policies by target key.
	byKey map[string][]*aPolicy
	byRef map[string][]*aPolicy

	systemNamespace string
}

func newAnalysis(ps []Policy, systemNamespace string) *analysis {
	pts, keys, targets := distinctTargets(ps, systemNamespace)
	a := &analysis{ps: ps, pols: make([]aPolicy, len(ps)), byOrd: make([]*aPolicy, len(ps)), targets: targets, systemNamespace: systemNamespace,
		keyLayers: map[string]*layer{}, bySel: map[string][]string{}, byKey: map[string][]*aPolicy{},
		byScope: map[[2]string][]string{}, byRef: map[string][]*aPolicy{}}
	sortKeys := make([]sortKey, len(ps))
	idx := make([]int, len(ps))
	for i, p := range ps {
		sortKeys[i], idx[i] = keyOf(p, systemNamespace), i
	}
	slices.SortFunc(idx, func(x, y int) int {
		return cmp.Or(compareKeys(sortKeys[x], sortKeys[y]), cmp.Compare(x, y))
	})
	for ord, i := range idx {
		a.pols[i] = newAPolicy(ps[i], pts[i], keys[i], ord)
		a.pols[i].in = i
		a.byOrd[ord] = &a.pols[i]
	}
	rank0 := map[[3]string][]*aPolicy{}
	var buf []byte
	for _, p := range a.byOrd { // in merge order, so every list below is too
		first := len(a.byKey[p.key]) == 0
		a.byKey[p.key] = append(a.byKey[p.key], p)
		a.byRef[p.ref] = append(a.byRef[p.ref], p)
		switch {
		case p.t.Route() || !selectsProxies(p.t.Kind):
		case p.t.Kind == api.RefMesh || p.t.Kind == "":
			k := [3]string{p.t.Mesh, p.t.Namespace, p.t.Zone}
			rank0[k] = append(rank0[k], p)
		case first:
			buf = selKey(buf[:0], p.t.Mesh, p.t.Namespace, p.sel)
			a.bySel[string(buf)] = append(a.bySel[string(buf)], p.key)
			s := [2]string{p.t.Mesh, p.t.Namespace}
			a.byScope[s] = append(a.byScope[s], p.key)
		}
	}
	a.layers = make(map[[3]string]*layer, len(rank0))
	for k, pols := range rank0 {
		a.layers[k] = newLayer(pols)
	}
	for k, pols := range a.byKey {
		if t := pols[0].t; t.Route() || !selectsProxies(t.Kind) || (t.Kind != api.RefMesh && t.Kind != "") {
			a.keyLayers[k] = newLayer(pols)
		}
	}
	return a
}

func newAPolicy(p Policy, t Target, key string, ord int) aPolicy {
	ap := aPolicy{ord: ord, t: t, key: key, ref: p.Ref(), rules: p.IsRulesForm(), sel: selectorEntries(t)}
	ap.items = make([]aItem, len(p.Spec.From))
	for i, f := range p.Spec.From {
		act, err := ParseAction(f.Default.Action)
		ap.bad = ap.bad || err != nil
		as := itemAtoms(nil, f.TargetRef, t.Mesh)
		slices.SortFunc(as, compareAtoms)
		ap.items[i] = aItem{rank: int64(ord)<<32 | int64(i), atoms: as, action: act,
			scan: len(as)+1 > maxSubsetAtoms || !selfCompatible(as)}
	}
	return ap
}

// members returns the layers of group t: its shared rank-0 layers and the layers
// of the other target keys that apply to it.
func (a *analysis) members(kt keyedTarget) []*layer {
	t := kt.t
	var out []*layer
	if !t.Route() {
		for _, ns := range uniq(t.Namespace) {
			for _, z := range uniq(t.Zone) {
				if l := a.layers[[3]string{t.Mesh, ns, z}]; l != nil {
					out = append(out, l)
				}
			}
		}
	}
	if t.Route() || !selectsProxies(t.Kind) {
		if l := a.keyLayers[kt.key]; l != nil {
			out = append(out, l)
		}
		return out
	}
	for _, k := range a.containedKeys(t) {
		l := a.keyLayers[k]
		if p := l.pols[0]; appliesKeyed(p.t, t, p.key, kt.key) {
			out = append(out, l)
		}
	}
	return out
}

// uniq is "" and s, or just "" when s is empty.
func uniq(s string) []string {
	if s == "" {
		return []string{""}
	}
	return []string{"", s}
}

// containedKeys lists the target keys of rank > 0 whose selector is a subset of
// t's, in t's mesh and namespace or none: the candidates to apply to t, found by
// enumerating the subsets.
func (a *analysis) containedKeys(t Target) []string {
	var out []string
	sel := selectorEntries(t)
	if len(sel) > maxSubsetAtoms {
		for _, ns := range uniq(t.Namespace) {
			out = append(out, a.byScope[[2]string{t.Mesh, ns}]...)
		}
		return out
	}
	var buf []byte
	sub := make([]selEntry, 0, len(sel))
	for mask := 0; mask < 1<<len(sel); mask++ {
		sub = sub[:0]
		for i, e := range sel {
			if mask&(1<<i) != 0 {
				sub = append(sub, e)
			}
		}
		for _, ns := range uniq(t.Namespace) {
			buf = selKey(buf[:0], t.Mesh, ns, sub)
			out = append(out, a.bySel[string(buf)]...)
		}
	}
	return out
}

// group is Analyze for one group, on its layers.
func (a *analysis) group(kt keyedTarget) field.ErrorList {
	ls := a.members(kt)
	n := 0
	for _, l := range ls {
		if l.rules {
			return a.matchers(kt, ls)
		}
	}
	for _, l := range ls {
		if l.bad {
			return nil
		}
		n += len(l.items)
	}
	if n == 0 {
		return nil
	}
	g := Group{Target: kt.t}
	scope := ""
	scopeOf := func() string {
		if scope == "" {
			scope = g.Target.Scope()
		}
		return scope
	}
	var out field.ErrorList
	own := a.ownItems(kt)
	for _, x := range own {
		best := int64(-1)
		for _, l := range ls {
			best = max(best, l.coverMax(x, false))
		}
		if best < 0 {
			continue
		}
		xp, bp := a.byOrd[x.rank>>32], a.byOrd[best>>32]
		xi, bi := MergedItem{Index: int(x.rank & 0xffffffff)}, MergedItem{Index: int(best & 0xffffffff)}
		by := &bp.items[bi.Index]
		out = append(out, finding(CodeDeadItem, xp.ref, xi.Path(),
			"this item never decides for "+scopeOf()+": every client it matches also matches the later item "+
				bp.ref+" "+bi.Path()+" ("+by.action.String()+"), and the last matching item wins"))
	}
	if !allowsAnyoneLayered(ls) {
		pols := mergeLayers(ls)
		names := make([]string, len(pols))
		for i, p := range pols {
			names[i] = p.ref
		}
		out = append(out, finding(CodeDenyAll, names[len(names)-1], "spec.from",
			denyAllDetail(scopeOf(), "no ALLOW item of "+joinRefs(names)+" is left once later DENY items are applied")))
	}
	if g.Target.Kind == api.RefMesh && g.Target.Namespace == "" {
		for _, x := range own {
			p := a.byOrd[x.rank>>32]
			i := int(x.rank & 0xffffffff)
			f := a.ps[p.in].Spec.From[i]
			if f.TargetRef != nil && f.TargetRef.Kind == api.RefMesh && (f.TargetRef.Mesh == "" || f.TargetRef.Mesh == g.Target.Mesh) && x.action.Allows() {
				out = append(out, finding(CodeAllowAll, p.ref, MergedItem{Index: i}.Path(),
					"every client in mesh "+g.Target.Mesh+" may reach every proxy of the mesh (action "+x.action.String()+
						"); allow the clients that need access instead"))
			}
		}
	}
	return out
}

// ownItems are the items the findings of the group are about, in merge order: as
// in Analyze, the items of every member whose Ref's last member in the group has
// the group's own target. Only the Refs of the group's own policies can.
func (a *analysis) ownItems(kt keyedTarget) []*aItem {
	var out []*aItem
	done := map[string]bool{}
	for _, p := range a.byKey[kt.key] {
		if done[p.ref] || !a.ownRef(kt, p) {
			continue
		}
		done[p.ref] = true
		for _, q := range a.byRef[p.ref] {
			if q == p || appliesKeyed(q.t, kt.t, q.key, kt.key) {
				for k := range q.items {
					out = append(out, &q.items[k])
				}
			}
		}
	}
	slices.SortFunc(out, func(x, y *aItem) int { return cmp.Compare(x.rank, y.rank) })
	return out
}

// allowsAnyoneLayered is allowsAnyone of the group's merged list: some allow item
// that no later deny item covers. An item alive in its own layer is checked against
// the other layers' deny items; a deny item without atoms ends every earlier item.
func allowsAnyoneLayered(ls []*layer) bool {
	for li := len(ls) - 1; li >= 0; li-- {
		l := ls[li]
		start := int64(-1)
		for _, m := range ls {
			if m != l {
				start = max(start, m.emptyDeny)
			}
		}
		i, _ := slices.BinarySearchFunc(l.alive, start+1, func(x *aItem, r int64) int { return cmp.Compare(x.rank, r) })
	items:
		for _, x := range l.alive[i:] {
			for _, m := range ls {
				if m != l && m.coveredAfter(x, true) {
					continue items
				}
			}
			return true
		}
	}
	return false
}

// mergeLayers lists the group's policies in merge order.
func mergeLayers(ls []*layer) []*aPolicy {
	var out []*aPolicy
	for _, l := range ls {
		out = append(out, l.pols...)
	}
	slices.SortFunc(out, func(x, y *aPolicy) int { return cmp.Compare(x.ord, y.ord) })
	return out
}

// matchers is Analyze for a group with SPIFFE-matcher policies: only those
// policies have entries, so only they are listed; the whole merged list is built
// only to name the policies of a group that denies everyone.
func (a *analysis) matchers(kt keyedTarget, ls []*layer) field.ErrorList {
	var rules []*aPolicy
	for _, l := range ls {
		rules = append(rules, l.rulesPols...)
	}
	slices.SortFunc(rules, func(x, y *aPolicy) int { return cmp.Compare(x.ord, y.ord) })
	var all []SpiffeEntry
	for _, p := range rules {
		all = append(all, SpiffeEntries(a.ps[p.in])...)
	}
	owns := map[string]bool{}
	for _, p := range rules {
		if _, ok := owns[p.ref]; !ok {
			owns[p.ref] = a.ownRef(kt, p)
		}
	}
	return matcherFindings(kt.t, all, func(ref string) bool { return owns[ref] }, true, func() (string, string) {
		pols := mergeLayers(ls)
		names := make([]string, len(pols))
		for i, p := range pols {
			names[i] = p.ref
		}
		return names[len(names)-1], joinRefs(names)
	})
}

// ownRef reports whether, as in Analyze, p's Ref counts as the group's own: the
// last member of the group with that Ref has the group's target.
func (a *analysis) ownRef(kt keyedTarget, p *aPolicy) bool {
	same := a.byRef[p.ref]
	if len(same) == 1 {
		return p.key == kt.key
	}
	for i := len(same) - 1; i >= 0; i-- { // byRef is in merge order
		if q := same[i]; appliesKeyed(q.t, kt.t, q.key, kt.key) {
			return q.key == kt.key
		}
	}
	return false
}
