package kumaauthz

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumarules"
)

// KindRank is the specificity of a top-level targetRef kind in Kuma 2.14's merge
// order (kumarules.KindOrder: Mesh, Dataplane, MeshSubset, MeshGateway,
// MeshService, MeshExternalService, MeshMultiZoneService, MeshServiceSubset,
// MeshHTTPRoute): a policy with a higher rank comes later in the merged list, so
// its items override. Kuma ranks Dataplane right after Mesh, below MeshSubset and
// MeshService (api/common/v1alpha1's order map), and among Dataplane refs one by
// name over one by labels, and one with sectionName over one without. Route kinds
// never share a group with proxy-level kinds; their rank only keeps sorting total.
func KindRank(t api.TargetRef) int {
	switch t.Kind {
	case "":
		return kumarules.KindOrder(string(api.RefMesh)) * 4
	case api.RefMeshGatewayRoute:
		return (kumarules.KindOrder(string(api.RefMeshHTTPRoute)) + 1) * 4
	}
	r := kumarules.KindOrder(string(t.Kind)) * 4
	if t.Kind == api.RefDataplane {
		r += kumarules.DataplaneRefRank(t.Name, t.SectionName)
	}
	return r
}

// IsRouteRef reports whether a top-level targetRef points at a route rather than at
// proxies; such policies program a per-route RBAC filter (Kuma's MeshTrafficPermission MADR, step 5).
func IsRouteRef(t api.TargetRef) bool {
	return t.Kind == api.RefMeshHTTPRoute || t.Kind == api.RefMeshGatewayRoute
}

// originRank is Kuma's order of origins (kumarules.OriginOrder): global-originated
// policies are the least specific, then those without an origin label, then zone
// ones (Kuma's policy-on-namespace MADR step 2; ResourceOrigin.Compare).
func originRank(o string) int { return kumarules.OriginOrder(o) }

// roleRank orders roles as Kuma does (kumarules.RoleOrder): system, producer,
// consumer, workload-owner (the policy-on-namespace MADR step 3, with Kuma's
// PolicyRole.Compare putting workload-owner after consumer).
func roleRank(r api.PolicyRole) int { return kumarules.RoleOrder(r) }

// sortKey is everything ordering looks at, computed once per policy.
type sortKey struct {
	kind, origin, role    int
	name, namespace, mesh string
}

func keyOf(p Policy, systemNamespace string) sortKey {
	return sortKey{kind: KindRank(p.TopRef()), origin: originRank(p.Origin), role: roleRank(p.EffectiveRole(systemNamespace)),
		name: p.SortName(), namespace: p.Namespace, mesh: p.Mesh}
}

func compareKeys(a, b sortKey) int {
	if c := cmp.Compare(a.kind, b.kind); c != 0 {
		return c
	}
	if c := cmp.Compare(a.origin, b.origin); c != 0 {
		return c
	}
	if c := cmp.Compare(a.role, b.role); c != 0 {
		return c
	}
	if c := cmp.Compare(b.name, a.name); c != 0 {
		return c
	}
	if c := cmp.Compare(b.namespace, a.namespace); c != 0 {
		return c
	}
	return cmp.Compare(b.mesh, a.mesh)
}

// ComparePolicies orders two policies least specific first, the order in which
// their `from` lists are concatenated: top-level kind, then origin, then namespace
// role, then display name (SortName), where a lexicographically SMALLER name is MORE specific and so
// comes later (Kuma's policy-on-namespace MADR step 4, the policy-matching MADR "Sorting"). The MeshTrafficPermission MADR concatenates
// global, global-2 in the opposite name order; the later seeds win (docs/rbac.md).
// Namespace and mesh break remaining ties only to keep the order total.
func ComparePolicies(a, b Policy, systemNamespace string) int {
	return compareKeys(keyOf(a, systemNamespace), keyOf(b, systemNamespace))
}

// SortPolicies sorts policies in merge order (least specific first) in place, keeping
// the input order of equal policies. It sorts indices over
// precomputed keys: moving whole policies around is what made sorting 500 of them
// cost more than compiling them.
func SortPolicies(ps []Policy, systemNamespace string) {
	keys := make([]sortKey, len(ps))
	idx := make([]int, len(ps))
	for i, p := range ps {
		keys[i], idx[i] = keyOf(p, systemNamespace), i
	}
	// pdqsort with the input index as last key: stable, and fast on the already
	// (reverse) sorted inputs that name-numbered policies produce.
	slices.SortFunc(idx, func(a, b int) int {
		if c := compareKeys(keys[a], keys[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	// Apply the permutation in place, cycle by cycle: position i gets ps[idx[i]].
	for i := range idx {
		if idx[i] == i {
			continue
		}
		tmp, j := ps[i], i
		for {
			k := idx[j]
			idx[j] = j
			if k == i {
				ps[j] = tmp
				break
			}
			ps[j] = ps[k]
			j = k
		}
	}
}

// MergedItem is one `from` item of the merged list with the policy it came from, so
// previews and warnings can point at `ns/name` and `spec.from[i]`.
type MergedItem struct {
	// Policy is the source policy's Ref ("ns/name").
	Policy string `json:"policy"`
	// Index is the item's position in the source policy's spec.from.
	Index int `json:"index"`
	// From is the item itself.
	From api.MTPFrom `json:"from"`
}

// Path is the field path of the item in its source policy, e.g. spec.from[1].
func (m MergedItem) Path() string {
	if m.Index >= 0 && m.Index < len(fromPaths) {
		return fromPaths[m.Index]
	}
	return "spec.from[" + strconv.Itoa(m.Index) + "]"
}

// fromPaths are the Paths of the first items of a policy, built once: every preview
// and finding names its items by path.
var fromPaths = func() (out [64]string) {
	for i := range out {
		out[i] = "spec.from[" + strconv.Itoa(i) + "]"
	}
	return out
}()

// MergeFrom concatenates the `from` lists of already sorted policies, least
// specific policy first and each policy's items in written order: the list in which
// the last matching item decides.
func MergeFrom(sorted []Policy) []MergedItem { return mergeFrom(sorted, nil) }

// mergeFrom is MergeFrom with the policies' Refs already computed (nil: compute
// them).
func mergeFrom(sorted []Policy, refs []string) []MergedItem {
	n := 0
	for _, p := range sorted {
		n += len(p.Spec.From)
	}
	out := make([]MergedItem, 0, n)
	for k, p := range sorted {
		var ref string
		if refs != nil {
			ref = refs[k]
		} else {
			ref = p.Ref()
		}
		for i, f := range p.Spec.From {
			out = append(out, MergedItem{Policy: ref, Index: i, From: f})
		}
	}
	return out
}
