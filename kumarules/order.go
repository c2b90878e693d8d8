package kumarules

import (
	"cmp"
	"slices"

	"github.com/meshguard/meshguard/api"
)

// KindOrder is Kuma 2.14's specificity of top-level targetRef kinds, least
// specific first (Mesh 1, Dataplane 2, MeshSubset 3, MeshGateway 4, MeshService 5,
// MeshExternalService 6, MeshMultiZoneService 7, MeshServiceSubset 8,
// MeshHTTPRoute 9); unknown kinds rank 0, below Mesh, as Kuma's map lookup gives.
// It is the one copy of that order: the RBAC compiler sorts by it too.
func KindOrder(k string) int {
	switch k {
	case refMesh:
		return 1
	case refDataplane:
		return 2
	case refMeshSubset:
		return 3
	case refMeshGateway:
		return 4
	case refMeshService:
		return 5
	case refMeshExternalService:
		return 6
	case refMeshMultiZoneService:
		return 7
	case refMeshServiceSubset:
		return 8
	case refMeshHTTPRoute:
		return 9
	}
	return 0
}

// DataplaneRefRank refines KindOrder among Dataplane top-level refs: one by
// name (2) over one by labels (0), with sectionName (+1) over without, as Kuma's
// CompareDataplaneKind orders them. The RBAC compiler sorts by it too.
func DataplaneRefRank(name, sectionName string) int {
	r := 0
	if name != "" {
		r += 2
	}
	if sectionName != "" {
		r++
	}
	return r
}

// compareDataplaneRefs orders two Dataplane top-level refs (DataplaneRefRank).
func compareDataplaneRefs(a, b TargetRef) int {
	if a.Kind != refDataplane || b.Kind != refDataplane {
		return 0
	}
	return cmp.Compare(DataplaneRefRank(a.Name, a.SectionName), DataplaneRefRank(b.Name, b.SectionName))
}

// originOrder: global before a missing origin label before zone.
func originOrder(labels map[string]string) int { return OriginOrder(labels[api.LabelOrigin]) }

// OriginOrder is Kuma's order of a policy's kuma.io/origin label value: global
// (1) before a missing label (2) before zone (3).
func OriginOrder(origin string) int {
	switch origin {
	case api.OriginGlobal:
		return 1
	case "":
		return 2
	case "zone":
		return 3
	}
	return 0
}

// roleOrder: system (also a missing role label), producer, consumer, workload-owner.
func roleOrder(labels map[string]string) int {
	return RoleOrder(api.PolicyRole(labels[api.LabelPolicyRole]))
}

// RoleOrder is Kuma's order of policy roles: system (also none) 1, producer 2,
// consumer 3, workload-owner 4.
func RoleOrder(role api.PolicyRole) int {
	switch role {
	case api.RoleSystem, "":
		return 1
	case api.RoleProducer:
		return 2
	case api.RoleConsumer:
		return 3
	case api.RoleWorkloadOwner:
		return 4
	}
	return 0
}

// compareAttributes is Kuma's order of policies before names: top-level kind,
// Dataplane refinement, origin, role. Negative: a is less specific (merged first).
func compareAttributes(topA, topB TargetRef, a, b Meta) int {
	if c := cmp.Compare(KindOrder(topA.Kind), KindOrder(topB.Kind)); c != 0 {
		return c
	}
	if c := compareDataplaneRefs(topA, topB); c != 0 {
		return c
	}
	if c := cmp.Compare(originOrder(a.Labels), originOrder(b.Labels)); c != 0 {
		return c
	}
	return cmp.Compare(roleOrder(a.Labels), roleOrder(b.Labels))
}

// compareItems orders items as Kuma orders policies for merging: attributes, then
// display name, a smaller name being more specific (merged later).
func compareItems(a, b Item) int {
	if c := compareAttributes(a.TopLevel, b.TopLevel, a.Policy, b.Policy); c != 0 {
		return c
	}
	return cmp.Compare(b.Policy.DisplayName(), a.Policy.DisplayName())
}

// Compare orders two policies in Kuma 2.14's merge order, least specific first:
// top-level targetRef kind (Mesh, Dataplane, MeshSubset, MeshGateway, MeshService,
// MeshExternalService, MeshMultiZoneService, MeshServiceSubset, MeshHTTPRoute; a
// Dataplane by name over one by labels, with sectionName over without), origin
// (global, none, zone), role (system, producer, consumer, workload-owner), then
// display name, where the lexicographically smaller name wins (comes later).
func Compare(a, b Policy) int {
	return compareItems(Item{Policy: a.Meta, TopLevel: a.TopRef()}, Item{Policy: b.Meta, TopLevel: b.TopRef()})
}

// Sort sorts policies in merge order (see Compare), keeping the input order of
// equal ones. Top-level refs are parsed once per policy.
func Sort(ps []Policy) {
	items := make([]Item, len(ps))
	for i, p := range ps {
		items[i] = Item{Policy: p.Meta, TopLevel: p.TopRef(), Index: i}
	}
	slices.SortStableFunc(items, compareItems)
	orig := slices.Clone(ps)
	for i, it := range items {
		ps[i] = orig[it.Index]
	}
}
