package kumaauthz

import (
	"cmp"
	"slices"

	"github.com/meshguard/meshguard/api"
)

// Index keys let a store of many policies (an informer's indexer, see
// webhook.PolicyIndexKeys) answer "which stored policies can share a group with
// this one" without reading every policy: a stored policy is filed under the keys
// of its target (IndexKeys), and Related looks up only the keys the incoming
// policy's target and its groups name (containerKeys, memberKeys). Keys are
// candidates, never answers: Applies decides on each candidate, so a key that
// finds too much costs time, and one that finds too little would lose a policy
// (TestIndexKeysFindEveryPair checks that none does).
//
// Every key starts with the mesh, since Applies never relates two meshes.
const (
	keyMesh      = "m\x00" // every target: mesh
	keyNamespace = "n\x00" // every target: mesh, namespace ("" included)
	keyExact     = "k\x00" // routes and kinds without a selector: the target's key
	keyEmpty     = "e\x00" // selector kinds with an empty selector: mesh, namespace
	keyEntry     = "s\x00" // selector kinds: mesh, one selector entry (name, value)
	keySep       = "\x00"  // between the fields of a key
)

// IndexKeys are the keys a stored policy whose target is t is filed under.
func (t Target) IndexKeys() []string {
	out := []string{keyMesh + t.Mesh, keyNamespace + t.Mesh + keySep + t.Namespace}
	if t.Route() || !selectsProxies(t.Kind) {
		return append(out, keyExact+t.key())
	}
	n := len(out)
	eachSelectorEntry(t, func(k, v string) {
		out = append(out, keyEntry+t.Mesh+keySep+k+keySep+v)
	})
	if len(out) == n {
		out = append(out, keyEmpty+t.Mesh+keySep+t.Namespace)
	}
	return out
}

// containerKeys are keys under each of which every target g with Applies(pt, g)
// is filed: any one of them (the one that finds the fewest) gives the candidates
// for the groups a policy with target pt is a member of.
func (pt Target) containerKeys() []string {
	if pt.Route() || !selectsProxies(pt.Kind) {
		return []string{keyExact + pt.key()} // only its own target
	}
	var out []string
	eachSelectorEntry(pt, func(k, v string) {
		out = append(out, keyEntry+pt.Mesh+keySep+k+keySep+v) // g's selector holds pt's
	})
	if len(out) > 0 {
		return out // the namespace key would find every target of the namespace
	}
	if pt.Namespace != "" {
		return append(out, keyNamespace+pt.Mesh+keySep+pt.Namespace)
	}
	return append(out, keyMesh+pt.Mesh)
}

// memberKeys are keys under which, together, every target pt with Applies(pt, g)
// is filed: the candidates for the members of group g are all they find.
func (g Target) memberKeys() []string {
	if g.Route() {
		return []string{keyExact + g.key()}
	}
	// A member's namespace is empty or g's; an empty selector selects everything.
	out := []string{keyEmpty + g.Mesh + keySep}
	if g.Namespace != "" {
		out = append(out, keyEmpty+g.Mesh+keySep+g.Namespace)
	}
	if !selectsProxies(g.Kind) {
		return append(out, keyExact+g.key())
	}
	eachSelectorEntry(g, func(k, v string) {
		out = append(out, keyEntry+g.Mesh+keySep+k+keySep+v) // a member's entry is one of g's
	})
	return out
}

// eachSelectorEntry calls f for every entry of t's selector: the entries
// selectorGet finds, so that selectorContains(g, pt) means every entry of pt is
// one of g's.
func eachSelectorEntry(t Target, f func(k, v string)) {
	switch t.Kind {
	case api.RefMeshService:
		f(api.ServiceTag, t.Name)
	case api.RefMeshServiceSubset:
		for k, v := range t.Tags {
			if k != api.ServiceTag { // the name wins, as in selectorGet
				f(k, v)
			}
		}
		f(api.ServiceTag, t.Name)
	case api.RefMeshSubset:
		for k, v := range t.Tags {
			f(k, v)
		}
	case api.RefDataplane:
		for k, v := range t.Tags {
			if (k == selDataplane && t.Name != "") || (k == selSection && t.SectionName != "") {
				continue // overwritten below, as in selectorGet
			}
			f(k, v)
		}
		if t.Name != "" {
			f(selDataplane, t.Name)
		}
		if t.SectionName != "" {
			f(selSection, t.SectionName)
		}
	}
}

// Stored is a stored policy as an index of policies returns it: the policy and its
// target (TargetOf with the index's system namespace).
type Stored struct {
	Policy Policy
	Target Target
}

// Related returns first and, after it, the stored policies that are members of a
// group first is a member of: what BuildPreviews needs to form each group that
// contains first again, with the same members as if every stored policy were
// compiled. lookup returns the stored policies filed under an index key
// (Target.IndexKeys); a stored policy with first's namespace and name is the
// version first replaces and is left out. The work grows with the candidates the
// keys find, not with the number of stored policies. The stored policies come
// sorted by namespace and name.
func Related(first Policy, systemNamespace string, lookup func(key string) []Stored) []Policy {
	seen := map[string][]Stored{}
	find := func(key string) []Stored {
		s, ok := seen[key]
		if !ok {
			s = lookup(key)
			seen[key] = s
		}
		return s
	}
	replaced := func(s *Stored) bool {
		return s.Policy.Namespace == first.Namespace && s.Policy.Name == first.Name
	}
	t0 := TargetOf(first, systemNamespace)
	var groups []Target
	groupKeys := map[string]bool{}
	addGroup := func(g Target) {
		if k := g.key(); !groupKeys[k] {
			groupKeys[k] = true
			groups = append(groups, g)
		}
	}
	if Applies(t0, t0) {
		addGroup(t0)
	}
	var fewest []Stored
	for i, key := range t0.containerKeys() {
		if c := find(key); i == 0 || len(c) < len(fewest) {
			fewest = c
		}
	}
	for i := range fewest {
		if s := &fewest[i]; !replaced(s) && Applies(t0, s.Target) {
			addGroup(s.Target)
		}
	}
	var members []*Stored
	isMember := map[[2]string]bool{}
	for _, g := range groups {
		for _, key := range g.memberKeys() {
			cands := find(key)
			for i := range cands {
				s := &cands[i]
				id := [2]string{s.Policy.Namespace, s.Policy.Name}
				if isMember[id] || replaced(s) || !Applies(s.Target, g) {
					continue
				}
				isMember[id] = true
				members = append(members, s)
			}
		}
	}
	slices.SortFunc(members, func(a, b *Stored) int {
		return cmp.Or(cmp.Compare(a.Policy.Namespace, b.Policy.Namespace), cmp.Compare(a.Policy.Name, b.Policy.Name))
	})
	out := make([]Policy, 0, len(members)+1)
	out = append(out, first)
	for _, s := range members {
		out = append(out, s.Policy)
	}
	return out
}
