package kumaauthz

import (
	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/config/rbac/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"

	"github.com/meshguard/meshguard/api"
)

// atomKind says which certificate URI an atom tests.
type atomKind uint8

const (
	// atomTag is a tag k=v other than kuma.io/service: URI kuma://k/v.
	atomTag atomKind = iota
	// atomService is kuma.io/service=value in mesh key: URI spiffe://key/value.
	atomService
	// atomMesh is "the client is in mesh key" (cross-mesh `from` without a service):
	// URI prefix spiffe://key/.
	atomMesh
)

// atom is one condition on a client, i.e. one URI SAN test. A `from` item matches a
// client when all its atoms hold. Atoms of the same dimension (same tag key; any
// service; any mesh) exclude each other unless equal, which is what makes the
// compact form's "cannot overlap" pruning and the expanded form's "impossible
// combination" skipping exact.
type atom struct {
	kind  atomKind
	key   string
	value string
}

// dim is the dimension of an atom: a client has at most one value per dimension.
func (a atom) dim() string {
	switch a.kind {
	case atomService:
		return "\x00svc"
	case atomMesh:
		return "\x00mesh"
	}
	return a.key
}

// uri is the SAN the atom compares with: exact for tags and services, prefix for
// a mesh.
func (a atom) uri() string {
	switch a.kind {
	case atomService:
		return "spiffe://" + a.key + "/" + a.value
	case atomMesh:
		return "spiffe://" + a.key + "/"
	}
	return "kuma://" + a.key + "/" + a.value
}

// compatible reports whether some client can satisfy both atoms.
func compatible(a, b atom) bool {
	if a.dim() == b.dim() {
		return a == b
	}
	if a.kind == atomService && b.kind == atomMesh {
		return a.key == b.key
	}
	if a.kind == atomMesh && b.kind == atomService {
		return a.key == b.key
	}
	return true
}

// implies reports whether every client satisfying a satisfies b.
func implies(a, b atom) bool {
	return a == b || (a.kind == atomService && b.kind == atomMesh && a.key == b.key)
}

// cItem is a merged `from` item reduced to its atoms and action.
type cItem struct {
	atoms  []atom
	action Action
}

// itemAtoms appends the atoms of a from targetRef to dst: the MeshTrafficPermission MADR's tag view
// (api.TargetRef.TagView), with kuma.io/service becoming a SPIFFE atom in the
// client's mesh. A `mesh` other than the target's own adds the mesh condition that
// a kuma:// tag URI cannot carry. Atoms come sorted by key so that output does not
// depend on map order; the tag view is read without building it, because this
// runs once per item per compilation.
func itemAtoms(dst []atom, ref *api.TargetRef, localMesh string) []atom {
	if ref == nil {
		return dst
	}
	mesh := ref.Mesh
	if mesh == "" {
		mesh = localMesh
	}
	start := len(dst)
	hasService := false
	switch ref.Kind {
	case api.RefMeshService:
		hasService = true
		dst = append(dst, atom{kind: atomService, key: mesh, value: ref.Name})
	case api.RefMeshSubset, api.RefMeshServiceSubset:
		for k, v := range ref.Tags {
			if k == api.ServiceTag {
				if ref.Kind == api.RefMeshServiceSubset {
					continue // the name wins, as in TagView
				}
				hasService = true
				dst = append(dst, atom{kind: atomService, key: mesh, value: v})
				continue
			}
			dst = append(dst, atom{kind: atomTag, key: k, value: v})
		}
		if ref.Kind == api.RefMeshServiceSubset {
			hasService = true
			dst = append(dst, atom{kind: atomService, key: mesh, value: ref.Name})
		}
	}
	if mesh != localMesh && !hasService {
		dst = append(dst, atom{kind: atomMesh, key: mesh})
	}
	mine := dst[start:] // insertion sort: an item has a handful of atoms
	for i := 1; i < len(mine); i++ {
		for j := i; j > 0 && atomKey(mine[j]) < atomKey(mine[j-1]); j-- {
			mine[j], mine[j-1] = mine[j-1], mine[j]
		}
	}
	return dst
}

// atomKey sorts atoms the way TagView keys sort; the mesh condition goes last.
func atomKey(a atom) string {
	switch a.kind {
	case atomService:
		return api.ServiceTag
	case atomMesh:
		return "\xff"
	}
	return a.key
}

// toItems converts merged items; it fails only on an action PolicyFromObject would
// already have refused, which matters for callers that build lists by hand.
func toItems(items []MergedItem, localMesh string) ([]cItem, error) {
	out := make([]cItem, len(items))
	n := 0
	for _, it := range items {
		if r := it.From.TargetRef; r != nil {
			n += len(r.Tags) + 2
		}
	}
	buf := make([]atom, 0, n) // one backing array for every item's atoms
	for i, it := range items {
		a, err := ParseAction(it.From.Default.Action)
		if err != nil {
			return nil, errorf("%s %s.default.action: %v", it.Policy, it.Path(), err)
		}
		start := len(buf)
		buf = itemAtoms(buf, it.From.TargetRef, localMesh)
		out[i] = cItem{atoms: buf[start:len(buf):len(buf)], action: a}
	}
	return out, nil
}

// overlaps reports whether some client matches both items.
func overlaps(a, b cItem) bool {
	for _, x := range a.atoms {
		for _, y := range b.atoms {
			if !compatible(x, y) {
				return false
			}
		}
	}
	return true
}

// covers reports whether every client matching inner also matches outer. For
// conjunctions of atoms over open value sets this is exact: the client that has
// only inner's tags (and fresh values elsewhere) matches outer only if each of
// outer's atoms is implied by one of inner's.
func covers(outer, inner cItem) bool {
	for _, o := range outer.atoms {
		found := false
		for _, i := range inner.atoms {
			if implies(i, o) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// principals builds Envoy principals and shares identical leaves: a preview can
// hold thousands of references to the same URI, and sharing keeps the expanded
// form's allocations proportional to the distinct atoms, not to the rule count.
type principals struct {
	pos map[atom]*rbacv3.Principal
	neg map[atom]*rbacv3.Principal
}

// newPrincipals sizes the leaf cache for about n distinct atoms.
func newPrincipals(n int) *principals {
	return &principals{pos: make(map[atom]*rbacv3.Principal, n), neg: map[atom]*rbacv3.Principal{}}
}

// idNode is every message of one authenticated principal in one allocation.
type idNode struct {
	p    rbacv3.Principal
	auth rbacv3.Principal_Authenticated_
	a    rbacv3.Principal_Authenticated
	sm   matcherv3.StringMatcher
	ex   matcherv3.StringMatcher_Exact
	px   matcherv3.StringMatcher_Prefix
}

// init fills the node as the principal "the client has the atom's URI".
func (n *idNode) init(a atom) *rbacv3.Principal {
	if a.kind == atomMesh {
		n.px.Prefix = a.uri()
		n.sm.MatchPattern = &n.px
	} else {
		n.ex.Exact = a.uri()
		n.sm.MatchPattern = &n.ex
	}
	n.a.PrincipalName = &n.sm
	n.auth.Authenticated = &n.a
	n.p.Identifier = &n.auth
	return &n.p
}

func (b *principals) id(a atom) *rbacv3.Principal {
	if p, ok := b.pos[a]; ok {
		return p
	}
	p := (&idNode{}).init(a)
	b.pos[a] = p
	return p
}

// itemLeaves builds the compact form's principals from one slab, indexed by item
// and atom instead of hashed: leaf k of item i is built once and reused by every
// exclusion that mentions item i. This is the hot path of the 500-policy case.
type itemLeaves struct {
	cs    []cItem
	off   []int
	slab  []idNode
	match []*rbacv3.Principal
}

func newItemLeaves(cs []cItem) *itemLeaves {
	l := &itemLeaves{cs: cs, off: make([]int, len(cs)), match: make([]*rbacv3.Principal, len(cs))}
	n := 0
	for i, c := range cs {
		l.off[i] = n
		n += len(c.atoms)
	}
	l.slab = make([]idNode, n)
	return l
}

// id is the principal of atom k of item i.
func (l *itemLeaves) id(i, k int) *rbacv3.Principal {
	n := &l.slab[l.off[i]+k]
	if n.p.Identifier == nil {
		return n.init(l.cs[i].atoms[k])
	}
	return &n.p
}

// matchOf is the principal "the client matches item i".
func (l *itemLeaves) matchOf(i int) *rbacv3.Principal {
	if p := l.match[i]; p != nil {
		return p
	}
	ps := make([]*rbacv3.Principal, len(l.cs[i].atoms))
	for k := range ps {
		ps[k] = l.id(i, k)
	}
	l.match[i] = andP(ps)
	return l.match[i]
}

func (b *principals) notID(a atom) *rbacv3.Principal {
	if p, ok := b.neg[a]; ok {
		return p
	}
	p := notP(b.id(a))
	b.neg[a] = p
	return p
}

func anyP() *rbacv3.Principal {
	return &rbacv3.Principal{Identifier: &rbacv3.Principal_Any{Any: true}}
}

func notP(p *rbacv3.Principal) *rbacv3.Principal {
	return &rbacv3.Principal{Identifier: &rbacv3.Principal_NotId{NotId: p}}
}

// setNode is a principal with and_ids/or_ids in one allocation.
type setNode struct {
	p   rbacv3.Principal
	and rbacv3.Principal_AndIds
	or  rbacv3.Principal_OrIds
	set rbacv3.Principal_Set
}

// andP is and_ids of ps; a single id stands alone and none means any.
func andP(ps []*rbacv3.Principal) *rbacv3.Principal {
	switch len(ps) {
	case 0:
		return anyP()
	case 1:
		return ps[0]
	}
	n := &setNode{}
	n.set.Ids = ps
	n.and.AndIds = &n.set
	n.p.Identifier = &n.and
	return &n.p
}

// orP is or_ids of ps (len ≥ 1); a single id stands alone.
func orP(ps []*rbacv3.Principal) *rbacv3.Principal {
	if len(ps) == 1 {
		return ps[0]
	}
	n := &setNode{}
	n.set.Ids = ps
	n.or.OrIds = &n.set
	n.p.Identifier = &n.or
	return &n.p
}
