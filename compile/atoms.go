package compile

import (
	"sort"

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

// itemAtoms turns a from targetRef into atoms: seed 000's tag view, with
// kuma.io/service becoming a SPIFFE atom in the client's mesh. A `mesh` other than
// the target's own adds the mesh condition that a kuma:// tag URI cannot carry.
func itemAtoms(ref *api.TargetRef, localMesh string) []atom {
	if ref == nil {
		return nil
	}
	mesh := ref.Mesh
	if mesh == "" {
		mesh = localMesh
	}
	tags := ref.TagView()
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]atom, 0, len(keys)+1)
	hasService := false
	for _, k := range keys {
		if k == api.ServiceTag {
			hasService = true
			out = append(out, atom{kind: atomService, key: mesh, value: tags[k]})
			continue
		}
		out = append(out, atom{kind: atomTag, key: k, value: tags[k]})
	}
	if mesh != localMesh && !hasService {
		out = append(out, atom{kind: atomMesh, key: mesh})
	}
	return out
}

// toItems converts merged items; it fails only on an action PolicyFromObject would
// already have refused, which matters for callers that build lists by hand.
func toItems(items []MergedItem, localMesh string) ([]cItem, error) {
	out := make([]cItem, len(items))
	for i, it := range items {
		a, err := ParseAction(it.From.Default.Action)
		if err != nil {
			return nil, errorf("%s %s.default.action: %v", it.Policy, it.Path(), err)
		}
		out[i] = cItem{atoms: itemAtoms(it.From.TargetRef, localMesh), action: a}
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

func newPrincipals() *principals {
	return &principals{pos: map[atom]*rbacv3.Principal{}, neg: map[atom]*rbacv3.Principal{}}
}

func (b *principals) id(a atom) *rbacv3.Principal {
	if p, ok := b.pos[a]; ok {
		return p
	}
	sm := &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: a.uri()}}
	if a.kind == atomMesh {
		sm = &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Prefix{Prefix: a.uri()}}
	}
	p := &rbacv3.Principal{Identifier: &rbacv3.Principal_Authenticated_{
		Authenticated: &rbacv3.Principal_Authenticated{PrincipalName: sm}}}
	b.pos[a] = p
	return p
}

func (b *principals) notID(a atom) *rbacv3.Principal {
	if p, ok := b.neg[a]; ok {
		return p
	}
	p := notP(b.id(a))
	b.neg[a] = p
	return p
}

// match is the principal "the client matches item": and of its atoms, any for none.
func (b *principals) match(it cItem) *rbacv3.Principal {
	ps := make([]*rbacv3.Principal, len(it.atoms))
	for i, a := range it.atoms {
		ps[i] = b.id(a)
	}
	return andP(ps)
}

func anyP() *rbacv3.Principal {
	return &rbacv3.Principal{Identifier: &rbacv3.Principal_Any{Any: true}}
}

func notP(p *rbacv3.Principal) *rbacv3.Principal {
	return &rbacv3.Principal{Identifier: &rbacv3.Principal_NotId{NotId: p}}
}

// andP is and_ids of ps; a single id stands alone and none means any.
func andP(ps []*rbacv3.Principal) *rbacv3.Principal {
	switch len(ps) {
	case 0:
		return anyP()
	case 1:
		return ps[0]
	}
	return &rbacv3.Principal{Identifier: &rbacv3.Principal_AndIds{AndIds: &rbacv3.Principal_Set{Ids: ps}}}
}

// orP is or_ids of ps (len ≥ 1); a single id stands alone.
func orP(ps []*rbacv3.Principal) *rbacv3.Principal {
	if len(ps) == 1 {
		return ps[0]
	}
	return &rbacv3.Principal{Identifier: &rbacv3.Principal_OrIds{OrIds: &rbacv3.Principal_Set{Ids: ps}}}
}
