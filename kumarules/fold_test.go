package kumarules

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestSegTreeMergesLikeOneByOne checks the composition the segment tree relies
// on: for random confs (nested objects, replaced lists, append lists) and random
// sets of universal items, merging a range's pre-merged confs equals merging its
// items one by one. Each key keeps one type, as in Kuma's typed confs (a field is
// an object, a list or a scalar, never one then another).
func TestSegTreeMergesLikeOneByOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	randConf := func() any {
		m := map[string]any{}
		if rng.IntN(2) == 0 {
			obj := map[string]any{}
			if rng.IntN(2) == 0 {
				obj["x"] = rng.IntN(9)
			}
			if rng.IntN(2) == 0 {
				obj["appendY"] = []any{rng.IntN(9)}
			}
			m["a"] = obj
		}
		if rng.IntN(2) == 0 {
			m["b"] = []any{rng.IntN(9)}
		}
		if rng.IntN(2) == 0 {
			m["c"] = fmt.Sprint(rng.IntN(9))
		}
		if rng.IntN(2) == 0 {
			m["appendX"] = []any{rng.IntN(9)}
		}
		return m
	}
	for round := range 300 {
		n := 1 + rng.IntN(12)
		leaves := make([]any, n)
		for i := range leaves {
			if rng.IntN(3) > 0 {
				leaves[i] = cleanConf(randConf())
			}
		}
		tree, err := buildSegTree(leaves)
		if err != nil {
			t.Fatal(err)
		}
		a := rng.IntN(n)
		b := a + rng.IntN(n-a+1)
		var direct []any
		for _, l := range leaves[a:b] {
			if l != nil {
				direct = append(direct, l)
			}
		}
		got, err := mergeClean(shapePlain, tree.appendRange(nil, a, b))
		if err != nil {
			t.Fatal(err)
		}
		want, err := mergeClean(shapePlain, direct)
		if err != nil {
			t.Fatal(err)
		}
		if js(t, got) != js(t, want) {
			t.Fatalf("round %d, items [%d,%d) of %s:\n tree %s\n one by one %s", round, a, b, js(t, leaves), js(t, got), js(t, want))
		}
	}
}
