package kumarules

import (
	"cmp"
	"slices"

	"github.com/meshguard/meshguard/api"
)

// ToEntries lists the `to` items of the policies (one kind) in the order Kuma
// merges them into the rules of real resources (MeshService,
// MeshExternalService, MeshMultiZoneService, MeshHTTPRoute): by the policies'
// attributes (Compare without the name), then by the item's targetRef kind (a
// MeshService with sectionName after one without), then by policy display name.
// Items of equal rank keep their written order. A kind without `to` gives none.
func (e *Engine) ToEntries(policies []Policy) ([]Item, error) {
	var items []Item
	for _, p := range policies {
		if !e.has(p.Type, api.SecTo) {
			return nil, nil
		}
		its, err := listItems(p, "to", toConf(p.Type))
		if err != nil {
			return nil, err
		}
		items = append(items, its...)
	}
	slices.SortStableFunc(items, compareToEntries)
	return items, nil
}

func compareToEntries(a, b Item) int {
	if c := compareAttributes(a.TopLevel, b.TopLevel, a.Policy, b.Policy); c != 0 {
		return c
	}
	if c := cmp.Compare(KindOrder(a.Ref.Kind), KindOrder(b.Ref.Kind)); c != 0 {
		return c
	}
	if a.Ref.Kind == refMeshService {
		if c := cmp.Compare(boolRank(a.Ref.SectionName != ""), boolRank(b.Ref.SectionName != "")); c != 0 {
			return c
		}
	}
	return cmp.Compare(b.Policy.DisplayName(), a.Policy.DisplayName())
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}
