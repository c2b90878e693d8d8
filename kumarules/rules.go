package kumarules

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Item is one entry of a policy that carries a conf: a `to` or `from` item, a
// `rules` entry, or the `default` of a single-item policy.
type Item struct {
	// Policy is the policy the item belongs to.
	Policy Meta
	// TopLevel is the policy's top-level targetRef; ordering reads it.
	TopLevel TargetRef
	// Ref is the item's own targetRef (the policy's top-level one for single items).
	Ref TargetRef
	// Conf is the item's `default`, as the merge sees it.
	Conf any
	// Index is the item's position in its list (spec.to[i], spec.from[i], spec.rules[i]).
	Index int
}

// Origin is a policy that contributed to a merged conf, with the item it contributed.
type Origin struct {
	Meta
	// Index is the position of the first contributing item of that policy.
	Index int `json:"index"`
}

// Rule is the conf for one subset of proxies: the proxies (clients for `from`,
// destinations for `to`) in Subset get Conf, merged from the Origins in this order.
type Rule struct {
	Subset  Subset   `json:"subset"`
	Conf    any      `json:"conf"`
	Origins []Origin `json:"origins"`
}

// BuildRules computes Kuma's subset rules from items in merge order (least
// specific first): every combination of the items' tags that can hold together
// (with negations when withNegations, which `from` rules need) becomes a subset,
// and its conf is the merge of every item whose subset includes it. Rules come
// most positive tags first, so the first rule that contains a proxy is the one
// that applies to it. Only the legacy kinds (Mesh, MeshSubset, MeshService,
// MeshServiceSubset) take part; real-resource kinds are ResourceRules' business.
func BuildRules(items []Item, withNegations bool) ([]Rule, error) {
	var old []Item
	for _, it := range items {
		if isOldKind(it.Ref.Kind) {
			it.Conf = cleanConf(it.Conf) // once per item, not once per subset
			old = append(old, it)
		}
	}
	if len(old) == 0 {
		return []Rule{}, nil
	}
	subsets := make([]Subset, len(old))
	keys := map[string]bool{}
	for i, it := range old {
		ss, err := subsetOf(it.Ref)
		if err != nil {
			return nil, err
		}
		for _, t := range ss {
			keys[t.Key] = true
		}
		subsets[i] = ss
	}
	shape := shapeOf(old[0].Policy.Type)
	// Items for the whole mesh apply to every subset: pre-merge their ranges.
	universal := make([]any, len(old))
	for i := range old {
		if len(subsets[i]) == 0 && shape == shapePlain {
			universal[i] = old[i].Conf
		}
	}
	rn, err := buildSegTree(universal)
	if err != nil {
		return nil, err
	}
	idx := newOriginIndex(len(old), func(i int) string { return old[i].Policy.key() })
	var rules []Rule
	if !withNegations && len(keys) <= 1 {
		seen := map[string]bool{}
		for _, ss := range subsets {
			if c := ss.canonical(); !seen[c] {
				seen[c] = true
				r, err := rulesFor(ss, old, subsets, shape, rn, idx)
				if err != nil {
					return nil, err
				}
				rules = append(rules, r...)
			}
		}
		sort.SliceStable(rules, func(i, j int) bool { return len(rules[i].Subset) > len(rules[j].Subset) })
		return rules, nil
	}
	for _, group := range cliqueGroups(subsets) {
		var tags []Tag
		seen := map[Tag]bool{}
		for _, n := range group {
			for _, t := range subsets[n] {
				if !seen[t] {
					seen[t] = true
					tags = append(tags, t)
				}
			}
		}
		sort.Slice(tags, func(i, j int) bool {
			if tags[i].Key != tags[j].Key {
				return tags[i].Key < tags[j].Key
			}
			return tags[i].Value < tags[j].Value
		})
		for _, ss := range partition(tags) {
			r, err := rulesFor(ss, old, subsets, shape, rn, idx)
			if err != nil {
				return nil, err
			}
			rules = append(rules, r...)
		}
	}
	sort.SliceStable(rules, func(i, j int) bool { return rules[i].Subset.NumPositive() > rules[j].Subset.NumPositive() })
	return rules, nil
}

// rulesFor merges the items whose subsets include ss (the mesh-wide ones through
// tree); no such item, no rule.
func rulesFor(ss Subset, items []Item, subsets []Subset, shape mergeShape, tree segTree, idx *originIndex) ([]Rule, error) {
	var relevant []int
	var confs []any
	from := 0
	for i := range items {
		if !subsets[i].Includes(ss) {
			continue
		}
		relevant = append(relevant, i)
		if tree.node[tree.n+i] == nil { // not pre-merged: merge it here, after the range before it
			confs = append(tree.appendRange(confs, from, i), items[i].Conf)
			from = i + 1
		}
	}
	if len(relevant) == 0 {
		return nil, nil
	}
	confs = tree.appendRange(confs, from, len(items))
	merged, err := mergeClean(shape, confs)
	if err != nil {
		return nil, err
	}
	origins := idx.origins(relevant, func(i int) Origin { return Origin{Meta: items[i].Policy, Index: items[i].Index} })
	out := make([]Rule, 0, len(merged))
	for _, m := range merged {
		out = append(out, Rule{Subset: ss, Conf: m, Origins: origins})
	}
	return out, nil
}

// originIndex numbers the distinct keys of a list of items (policies, or policy
// items), so that each rule's origins are deduplicated with a stamp per number
// rather than a map per rule: with many rules of many origins the maps were most
// of the engine's allocations.
type originIndex struct {
	id, stamp []int
	gen       int
}

func newOriginIndex(n int, key func(int) string) *originIndex {
	x := &originIndex{id: make([]int, n)}
	ids := map[string]int{}
	for i := range n {
		k := key(i)
		id, ok := ids[k]
		if !ok {
			id = len(ids)
			ids[k] = id
		}
		x.id[i] = id
	}
	x.stamp = make([]int, len(ids))
	return x
}

// origins keeps the first of relevant per key, in order.
func (x *originIndex) origins(relevant []int, at func(int) Origin) []Origin {
	x.gen++
	out := make([]Origin, 0, min(len(relevant), 8))
	for _, i := range relevant {
		if id := x.id[i]; x.stamp[id] != x.gen {
			x.stamp[id] = x.gen
			out = append(out, at(i))
		}
	}
	return out
}

// cliqueGroups groups the subsets that can all hold for one proxy: the maximal
// cliques of the graph whose edges join intersecting subsets (Kuma's default; its
// KUMA_MESH_TRAFFIC_PERMISSION_DISABLE_CLIQUES_ALGORITHM opt-out is not modelled).
// Each group's nodes are ascending, and groups are ordered as Kuma orders them:
// by their ids joined with ":", compared as strings, descending.
func cliqueGroups(subsets []Subset) [][]int {
	n := len(subsets)
	adj := make([][]bool, n)
	for i := range adj {
		adj[i] = make([]bool, n)
		for j := range adj[i] {
			adj[i][j] = i != j && subsets[i].Intersects(subsets[j])
		}
	}
	var cliques [][]int
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	bronKerbosch(adj, nil, all, nil, &cliques)
	names := make([]string, len(cliques))
	for i, c := range cliques {
		slices.Sort(c)
		parts := make([]string, len(c))
		for j, id := range c {
			parts[j] = strconv.Itoa(id)
		}
		names[i] = strings.Join(parts, ":")
	}
	idx := make([]int, len(cliques))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return names[idx[a]] > names[idx[b]] })
	out := make([][]int, len(idx))
	for i, k := range idx {
		out[i] = cliques[k]
	}
	return out
}

// bronKerbosch collects the maximal cliques extending r with vertices of p and
// none of x (the pivoting form: it skips neighbours of a pivot).
func bronKerbosch(adj [][]bool, r, p, x []int, out *[][]int) {
	if len(p) == 0 && len(x) == 0 {
		*out = append(*out, slices.Clone(r))
		return
	}
	pivot, best := -1, -1
	for _, u := range append(slices.Clone(p), x...) {
		c := 0
		for _, v := range p {
			if adj[u][v] {
				c++
			}
		}
		if c > best {
			pivot, best = u, c
		}
	}
	for _, v := range slices.Clone(p) {
		if pivot >= 0 && adj[pivot][v] {
			continue
		}
		var np, nx []int
		for _, w := range p {
			if adj[v][w] {
				np = append(np, w)
			}
		}
		for _, w := range x {
			if adj[v][w] {
				nx = append(nx, w)
			}
		}
		bronKerbosch(adj, append(slices.Clone(r), v), np, nx, out)
		p = slices.DeleteFunc(p, func(w int) bool { return w == v })
		x = append(x, v)
	}
}
