package kumarules

// runs speed up merging the same items into many targets: a run is a stretch of
// consecutive items that apply to exactly the same targets (e.g. every `to: Mesh`
// item of a class of policies), merged once and applied as one conf. Merge patches
// without nulls compose (merging a run's merge equals merging its items one by
// one, append lists included) as long as a field keeps one type across confs, as
// Kuma's typed confs guarantee (TestSegTreeMergesLikeOneByOne), so the answer is
// the same; MeshHTTPRoute confs, whose rules merge by key and hostname, are merged
// item by item.
type runs struct {
	// end[i] is one past the last item of the run starting at i; conf[i] its merge.
	end  map[int]int
	conf map[int]any
}

// planRuns finds the runs of at least two items with the same non-empty key (key
// "" marks an item that is never part of a run) and merges each.
func planRuns(n int, key func(int) string, conf func(int) any, shape mergeShape) (runs, error) {
	r := runs{end: map[int]int{}, conf: map[int]any{}}
	if shape != shapePlain {
		return r, nil
	}
	for i := 0; i < n; {
		k := key(i)
		j := i + 1
		for j < n && k != "" && key(j) == k {
			j++
		}
		if j-i >= 2 {
			confs := make([]any, 0, j-i)
			for x := i; x < j; x++ {
				confs = append(confs, conf(x))
			}
			merged, err := mergeClean(shape, confs)
			if err != nil {
				return runs{}, err
			}
			r.end[i], r.conf[i] = j, merged[0]
		}
		i = j
	}
	return r, nil
}

// confsFor lists the confs to merge for a target: each relevant item's, a run's
// merge in place of its items. Items of a run are all relevant or none.
func (r runs) confsFor(n int, relevant func(int) bool, conf func(int) any) []any {
	var out []any
	for i := 0; i < n; {
		if end, ok := r.end[i]; ok {
			if relevant(i) {
				out = append(out, r.conf[i])
			}
			i = end
			continue
		}
		if relevant(i) {
			out = append(out, conf(i))
		}
		i++
	}
	return out
}

// segTree holds merged confs of ranges of items that apply to every target (the
// others are empty leaves), so a target's merge takes the universal items between
// its own ones as O(log n) pre-merged confs instead of one by one. Like runs, it
// relies on merge patches without nulls composing, and is not used for
// MeshHTTPRoute confs.
type segTree struct {
	n    int
	node []any // node[1] is the root; leaves at n..2n-1; nil: no conf in the range
}

// buildSegTree merges leaves (nil for items that are not universal) pairwise.
func buildSegTree(leaves []any) (segTree, error) {
	n := len(leaves)
	t := segTree{n: n, node: make([]any, 2*n)}
	copy(t.node[n:], leaves)
	for k := n - 1; k >= 1; k-- {
		m, err := joinConfs(t.node[2*k], t.node[2*k+1])
		if err != nil {
			return segTree{}, err
		}
		t.node[k] = m
	}
	return t, nil
}

func joinConfs(a, b any) (any, error) {
	switch {
	case a == nil:
		return b, nil
	case b == nil:
		return a, nil
	}
	m, err := mergeClean(shapePlain, []any{a, b})
	if err != nil {
		return nil, err
	}
	return m[0], nil
}

// appendRange appends, in item order, the pre-merged confs that cover items [a, b).
func (t segTree) appendRange(out []any, a, b int) []any {
	var right []any
	for l, r := a+t.n, b+t.n; l < r; l, r = l/2, r/2 {
		if l&1 == 1 {
			if t.node[l] != nil {
				out = append(out, t.node[l])
			}
			l++
		}
		if r&1 == 1 {
			r--
			if t.node[r] != nil {
				right = append(right, t.node[r])
			}
		}
	}
	for i := len(right) - 1; i >= 0; i-- {
		out = append(out, right[i])
	}
	return out
}

// confsOf is confsFor over the relevant items, ascending: a run whose first item
// is relevant contributes its pre-merged conf (its items are alike, all relevant
// or none), without walking the items that are not relevant.
func (r runs) confsOf(relevant []int, conf func(int) any) []any {
	out := make([]any, 0, len(relevant))
	for j := 0; j < len(relevant); j++ {
		i := relevant[j]
		end, ok := r.end[i]
		if !ok {
			out = append(out, conf(i))
			continue
		}
		out = append(out, r.conf[i])
		for j+1 < len(relevant) && relevant[j+1] < end {
			j++
		}
	}
	return out
}
