package kumaauthz

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

// randomCItems are n items of a few atoms each from a small universe, so that
// items often cover each other: tags, services in two meshes, mesh conditions,
// repeated atoms, items without atoms, and some with more atoms than
// deadIndexed looks up by subset.
func randomCItems(r *rand.Rand, n int) []cItem {
	universe := []atom{
		{kind: atomService, key: "default", value: "a"}, {kind: atomService, key: "default", value: "b"},
		{kind: atomService, key: "other", value: "a"}, {kind: atomMesh, key: "default"}, {kind: atomMesh, key: "other"},
	}
	for k := range 4 {
		for v := range 2 {
			universe = append(universe, atom{kind: atomTag, key: fmt.Sprintf("k%d", k), value: fmt.Sprintf("v%d", v)})
		}
	}
	for k := range 12 {
		universe = append(universe, atom{kind: atomTag, key: fmt.Sprintf("wide%d", k), value: "x"})
	}
	cs := make([]cItem, n)
	for i := range cs {
		m := r.Intn(4)
		if r.Intn(8) == 0 {
			m = 9 + r.Intn(8) // past maxImplied
		}
		for range m {
			cs[i].atoms = append(cs[i].atoms, universe[r.Intn(len(universe))])
		}
		cs[i].action = Action(r.Intn(3))
	}
	return cs
}

// TestDeadIndexedIsPairwise: the indexed "never decides" check marks the same
// items as comparing every pair, with and without a mask.
func TestDeadIndexedIsPairwise(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for range 400 {
		cs := randomCItems(r, 1+r.Intn(120))
		var mask []bool
		if r.Intn(2) == 0 {
			mask = make([]bool, len(cs))
			for i := range mask {
				mask[i] = r.Intn(3) > 0
			}
		}
		want, got := deadPairwise(cs, mask), deadIndexed(cs, mask)
		if !slices.Equal(want, got) {
			t.Fatalf("items %+v mask %v:\npairwise %v\nindexed  %v", cs, mask, want, got)
		}
	}
}
