package kumaauthz

import (
	"github.com/meshguard/meshguard/internal/classes"

	"slices"
	"strings"

	"github.com/meshguard/meshguard/api"
)

// listSide is one side of a group's diff: its merged list and how it decides.
type listSide struct {
	matcher bool
	// `from` form: the merged items and their atoms.
	items []MergedItem
	cs    []cItem
	// matcher form: the SPIFFE matchers in merge order.
	entries []SpiffeEntry
}

func newListSide(ps []Policy, mesh string) (*listSide, error) {
	s := &listSide{matcher: usesMatchers(ps)}
	if s.matcher {
		for _, p := range ps {
			if p.IsRulesForm() {
				s.entries = append(s.entries, SpiffeEntries(p)...)
			}
		}
		return s, nil
	}
	s.items = MergeFrom(ps)
	cs, err := toItems(s.items, mesh)
	if err != nil {
		return nil, err
	}
	s.cs = cs
	return s, nil
}

func (s *listSide) len() int {
	if s.matcher {
		return len(s.entries)
	}
	return len(s.cs)
}

// decide is the side's decision for a classes.Cell whose conditions met are met; the
// side's conditions are bits base.. of met.
func (s *listSide) decide(met []uint64, base int) ClassDecision {
	if !s.matcher {
		top := classes.TopBit(met, base/64, (base+len(s.cs)+63)/64)
		if top < 0 {
			return ClassDecision{}
		}
		i := top - base
		a := s.cs[i].action
		return ClassDecision{Allow: a.Allows(), ShadowAllow: a.ShadowAllows(),
			By: &ItemRef{Policy: s.items[i].Policy, Path: s.items[i].Path(), Action: s.items[i].From.Default.Action}}
	}
	// The matcher trees: denying matchers first, then allowing ones, no match denies.
	first := func(denying func(string) bool, want bool) int {
		for j, e := range s.entries {
			if classes.HasBit(met, base+j) && denying(e.List) == want {
				return j
			}
		}
		return -1
	}
	enforcedDeny := func(l string) bool { return l == ListDeny }
	shadowDeny := func(l string) bool { return l == ListDeny || l == ListAllowWithShadowDeny }
	var d ClassDecision
	by, sh := first(enforcedDeny, true), first(shadowDeny, true)
	if by < 0 {
		if by = first(enforcedDeny, false); by >= 0 {
			d.Allow = true
		}
	}
	if sh < 0 {
		if sh = first(shadowDeny, false); sh >= 0 {
			d.ShadowAllow = true
		}
	}
	ref := func(j int) *ItemRef {
		if j < 0 {
			return nil
		}
		e := s.entries[j]
		return &ItemRef{Policy: e.Policy, Path: e.Path, Action: e.List}
	}
	d.By = ref(by)
	if sh != by {
		d.ShadowBy = ref(sh)
	}
	return d
}

// classModel is the dimensions of a group's clients with both sides' conditions
// laid out: old at bits 0.., new at bits newOff.. (a word boundary).
type classModel struct {
	dims    []classes.Dim
	render  []func(choice []int) string
	words   int
	newOff  int
	lastDim []int
	start   []uint64
	sides   []classes.Side
	// What tests need to build a client of a classes.Cell.
	idClasses []idClass
	tagKeys   []string
	tagVals   [][]string
	strDims   []strDim
}

func newClassModel(o, n *listSide) *classModel {
	m := &classModel{newOff: (o.len() + 63) / 64 * 64}
	m.words = max(1, (m.newOff+n.len()+63)/64)
	m.lastDim = make([]int, m.words*64)
	for i := range m.lastDim {
		m.lastDim[i] = -1
	}
	m.start = make([]uint64, m.words)
	m.sides = []classes.Side{{W0: 0, W1: m.newOff / 64, LastWins: !o.matcher}, {W0: m.newOff / 64, W1: m.words, LastWins: !n.matcher}}
	return m
}

func (m *classModel) addDim(nvals int, render func([]int) string) int {
	d := classes.Dim{Has: make([]uint64, m.words), Vals: make([][]uint64, nvals)}
	for v := range d.Vals {
		d.Vals[v] = make([]uint64, m.words)
	}
	m.dims = append(m.dims, d)
	m.render = append(m.render, render)
	return len(m.dims) - 1
}

func (m *classModel) enum(limit int) *classes.Enum {
	return classes.NewEnum(m.dims, m.words, m.lastDim, m.sides, limit)
}

// describe renders a classes.Cell's conditions, one per restricted dimension.
func (m *classModel) describe(choice [][]int) []string {
	out := []string{}
	for d, ch := range choice {
		if ch != nil {
			out = append(out, m.render[d](ch))
		}
	}
	return out
}

// idClass is a class of the identity dimension of the tag model: a service of a
// mesh, any other service of a mesh, or a mesh no condition names.
type idClass struct {
	mesh, svc string
	anySvc    bool
	otherMesh bool
}

func (c idClass) holds(a atom) bool {
	switch a.kind {
	case atomService:
		return !c.otherMesh && !c.anySvc && c.mesh == a.key && c.svc == a.value
	case atomMesh:
		return !c.otherMesh && c.mesh == a.key
	}
	return false
}

// tagModel describes clients by their mesh and service (one dimension, since a
// service atom carries its mesh) and one dimension per tag key; the classes of a
// tag key are its named values and "any other value or none".
func tagModel(o, n *listSide, local string) *classModel {
	m := newClassModel(o, n)
	var conds []tagCond
	for i, c := range o.cs {
		conds = append(conds, tagCond{i, c.atoms})
	}
	for i, c := range n.cs {
		conds = append(conds, tagCond{m.newOff + i, c.atoms})
	}
	meshes := []string{local}
	svcs := map[string][]string{}
	tagVals := map[string][]string{}
	seen := map[atom]bool{}
	for _, c := range conds {
		for _, a := range c.atoms {
			if seen[a] {
				continue
			}
			seen[a] = true
			switch a.kind {
			case atomService:
				meshes = append(meshes, a.key)
				svcs[a.key] = append(svcs[a.key], a.value)
			case atomMesh:
				meshes = append(meshes, a.key)
			default:
				tagVals[a.key] = append(tagVals[a.key], a.value)
			}
		}
	}
	slices.Sort(meshes[1:])
	meshes = slices.Compact(meshes)
	meshes = append(meshes[:1], slices.DeleteFunc(meshes[1:], func(s string) bool { return s == local })...)
	for _, me := range meshes {
		vs := svcs[me]
		slices.Sort(vs)
		for _, v := range vs {
			m.idClasses = append(m.idClasses, idClass{mesh: me, svc: v})
		}
		m.idClasses = append(m.idClasses, idClass{mesh: me, anySvc: true})
	}
	m.idClasses = append(m.idClasses, idClass{otherMesh: true})
	m.addDim(len(m.idClasses), func(ch []int) string { return renderIdentity(m.idClasses, ch, local, meshes) })
	m.tagKeys = slices.Sorted(func(yield func(string) bool) {
		for k := range tagVals {
			if !yield(k) {
				return
			}
		}
	})
	dimOf := map[string]int{}
	for _, k := range m.tagKeys {
		vs := tagVals[k]
		slices.Sort(vs)
		m.tagVals = append(m.tagVals, vs)
		dimOf[k] = m.addDim(len(vs)+1, func(ch []int) string { return renderValues(k, vs, ch) })
	}
	m.setTagConds(conds, dimOf)
	return m
}

// tagCond is a condition of the tag model: its bit and its atoms.
type tagCond struct {
	p     int
	atoms []atom
}

// setTagConds sets, for every condition, the bits of the classes meeting its
// atoms; dimOf maps a tag key to its dimension.
func (m *classModel) setTagConds(conds []tagCond, dimOf map[string]int) {
	// The classes meeting an atom, by lookup: a service is one class, a mesh the
	// classes of that mesh, a tag value one class of its key.
	idOf := map[atom][]int{}
	for i, ic := range m.idClasses {
		switch {
		case ic.otherMesh:
		case ic.anySvc:
			k := atom{kind: atomMesh, key: ic.mesh}
			idOf[k] = append(idOf[k], i)
		default:
			idOf[atom{kind: atomService, key: ic.mesh, value: ic.svc}] = []int{i}
			k := atom{kind: atomMesh, key: ic.mesh}
			idOf[k] = append(idOf[k], i)
		}
	}
	valOf := make([]map[string]int, len(m.tagKeys))
	for k, vs := range m.tagVals {
		valOf[k] = make(map[string]int, len(vs))
		for i, v := range vs {
			valOf[k][v] = i
		}
	}
	for _, c := range conds {
		classes.SetBit(m.start, c.p)
		// Per dimension, the classes meeting every atom of the condition on it
		// (a condition has a handful of atoms, one per dimension but for
		// contradictions, which intersect).
		type dimClasses struct {
			d   int
			cls []int
		}
		var small [8]dimClasses
		met := small[:0]
		for _, a := range c.atoms {
			d, cls := 0, idOf[a]
			if a.kind == atomTag {
				d = dimOf[a.key]
				cls = []int{valOf[d-1][a.value]}
			}
			k := slices.IndexFunc(met, func(x dimClasses) bool { return x.d == d })
			if k < 0 {
				met = append(met, dimClasses{d, cls})
				continue
			}
			met[k].cls = slices.DeleteFunc(slices.Clone(met[k].cls), func(v int) bool { return !slices.Contains(cls, v) })
		}
		for _, x := range met {
			m.lastDim[c.p] = max(m.lastDim[c.p], x.d)
			classes.SetBit(m.dims[x.d].Has, c.p)
			for _, v := range x.cls {
				classes.SetBit(m.dims[x.d].Vals[v], c.p)
			}
		}
	}
}

// renderValues renders the chosen classes of tag key k (classes: vs, then "any
// other value or none") as a Kubernetes label selector term.
func renderValues(k string, vs []string, ch []int) string {
	other := slices.Contains(ch, len(vs))
	var in, out []string
	for i, v := range vs {
		if slices.Contains(ch, i) {
			in = append(in, v)
		} else {
			out = append(out, v)
		}
	}
	switch {
	case !other && len(in) == 1:
		return k + "=" + in[0]
	case !other:
		return k + " in (" + strings.Join(in, ", ") + ")"
	case len(out) == 1:
		return k + "!=" + out[0]
	}
	return k + " notin (" + strings.Join(out, ", ") + ")"
}

// renderIdentity renders chosen identity classes: per mesh the services (as
// renderValues, "@mesh" for another mesh than the group's), or the mesh whole.
func renderIdentity(cls []idClass, ch []int, local string, meshes []string) string {
	chosen := func(i int) bool { return slices.Contains(ch, i) }
	var alts []string
	otherMesh := chosen(len(cls) - 1)
	for _, me := range meshes {
		var vs []string
		var idx []int
		anyIdx := -1
		for i, c := range cls {
			if c.otherMesh || c.mesh != me {
				continue
			}
			if c.anySvc {
				anyIdx = i
				continue
			}
			vs = append(vs, c.svc)
			if chosen(i) {
				idx = append(idx, len(vs)-1)
			}
		}
		if chosen(anyIdx) {
			idx = append(idx, len(vs))
		}
		if len(idx) == 0 {
			continue
		}
		suffix := ""
		if me != local {
			suffix = " @" + me
		}
		if len(idx) == len(vs)+1 {
			alts = append(alts, api.LabelMesh+"="+me)
			continue
		}
		if me == local && otherMesh && len(meshes) == 1 && chosen(anyIdx) {
			// Clients of other meshes have none of these services either.
			otherMesh = false
			alts = append(alts, renderValues(api.ServiceTag, vs, idx))
			continue
		}
		alts = append(alts, renderValues(api.ServiceTag, vs, idx)+suffix)
	}
	if otherMesh {
		alts = append(alts, api.LabelMesh+" notin ("+strings.Join(meshes, ", ")+")")
	}
	return strings.Join(alts, " or ")
}
