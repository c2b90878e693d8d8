package kumaauthz

import (
	"math"
	"math/bits"

	"github.com/meshguard/meshguard/api"
)

// ViewRule is one combination of the MeshTrafficPermission MADR's full rule view with negations: a group
// of clients described by a positive or negated value for every tag the merged list
// mentions, and the action the list decides for that group.
type ViewRule struct {
	// Tags are the conditions as the MeshTrafficPermission MADR writes them: "k=v" or "k!=v".
	// kuma.io/service of another mesh is written "kuma.io/service=X@mesh" and a
	// cross-mesh condition "kuma.io/mesh=M".
	Tags []string
	// Matched is false when no item matches the group (Envoy then denies).
	Matched bool
	// Action is the deciding (last matching) item's action when Matched.
	Action Action
	conds  []cond
}

type cond struct {
	atom atom
	not  bool
}

// dimInfo is one dimension of the view with its values and, per value, the bitset
// of items that test that value; has is the bitset of items testing the dimension.
type dimInfo struct {
	vals    []atom
	has     []uint64
	valBits [][]uint64
}

// ExpandRules is the MeshTrafficPermission MADR's full rule view of a merged list: every combination of
// the deduplicated tags with negations, skipping impossible ones (two values for
// one key, a service outside its mesh). ok is false, with no view, when the number
// of combinations exceeds limit (≤0: DefaultExpandBound).
func ExpandRules(localMesh string, items []MergedItem, limit int) (view []ViewRule, ok bool, err error) {
	if limit <= 0 {
		limit = DefaultExpandBound
	}
	cs, err := toItems(items, localMesh)
	if err != nil {
		return nil, false, err
	}
	view, _, ok = expand(cs, limit, true)
	for i := range view {
		view[i].Tags = renderConds(view[i].conds, localMesh)
	}
	return view, ok, nil
}

// expand enumerates the combinations depth first, one dimension per level, keeping
// the set of items still able to match as a bitset: at a leaf the highest set bit
// is the deciding item. n is the number of combinations (saturating) before
// impossible ones are skipped; past limit nothing is enumerated. Without all, only
// combinations that some rules admit are returned (all that RBAC needs).
func expand(cs []cItem, limit int, all bool) (view []ViewRule, n int, ok bool) {
	words := (len(cs) + 63) / 64
	dims := buildDims(cs, words)
	n = 1
	for _, d := range dims {
		if n > math.MaxInt/(len(d.vals)+1) {
			return nil, math.MaxInt, false
		}
		n *= len(d.vals) + 1
	}
	if n > limit {
		return nil, n, false
	}
	return enumerate(dims, cs, words, n, all), n, true
}

// buildDims groups the items' atoms by dimension: per dimension its distinct values,
// which items constrain it (has) and which items each value satisfies (valBits),
// as bitsets of words words.
func buildDims(cs []cItem, words int) []*dimInfo {
	// A first pass counts the atoms of every dimension, a bound on its values, so
	// that the dimensions, their values and all bitsets are carved from a few
	// shared arrays instead of being allocated one by one.
	index := map[string]int{}
	var perDim []int
	total := 0
	for _, c := range cs {
		for _, a := range c.atoms {
			di, seen := index[a.dim()]
			if !seen {
				di = len(perDim)
				index[a.dim()] = di
				perDim = append(perDim, 0)
			}
			perDim[di]++
			total++
		}
	}
	bitSlab := make([]uint64, words*(len(perDim)+total))
	bitsets := func() []uint64 {
		b := bitSlab[:words:words]
		bitSlab = bitSlab[words:]
		return b
	}
	dimStore := make([]dimInfo, len(perDim))
	dims := make([]*dimInfo, len(perDim))
	valSlab := make([]atom, total)
	valBitSlab := make([][]uint64, total)
	for di, k := range perDim {
		dims[di] = &dimStore[di]
		dims[di].has = bitsets()
		dims[di].vals, valSlab = valSlab[:0:k], valSlab[k:]
		dims[di].valBits, valBitSlab = valBitSlab[:0:k], valBitSlab[k:]
	}
	for i, c := range cs {
		for _, a := range c.atoms {
			d := dims[index[a.dim()]]
			vi := -1
			for k, v := range d.vals {
				if v == a {
					vi = k
				}
			}
			if vi < 0 {
				vi = len(d.vals)
				d.vals = append(d.vals, a)
				d.valBits = append(d.valBits, bitsets())
			}
			d.has[i/64] |= 1 << (i % 64)
			d.valBits[vi][i/64] |= 1 << (i % 64)
		}
	}
	return dims
}

// enumerate walks the n combinations of dims depth first and returns the feasible
// ones (see expand).
func enumerate(dims []*dimInfo, cs []cItem, words, n int, all bool) []ViewRule {
	cand := make([][]uint64, len(dims)+1)
	candSlab := make([]uint64, words*len(cand))
	for i := range cand {
		cand[i] = candSlab[i*words : (i+1)*words : (i+1)*words]
	}
	for i := range cs {
		cand[0][i/64] |= 1 << (i % 64)
	}
	choice := make([]int, len(dims))
	view := make([]ViewRule, 0, n)
	pos := make([]atom, 0, len(dims)) // leaf's scratch
	var rec func(d int)
	rec = func(d int) {
		if d == len(dims) {
			if r, feasible := leaf(dims, choice, cand[d], cs, all, pos); feasible {
				view = append(view, r)
			}
			return
		}
		cur, next, di := cand[d], cand[d+1], dims[d]
		for c := 0; c <= len(di.vals); c++ {
			if c < len(di.vals) {
				vb := di.valBits[c]
				for w := range next {
					next[w] = cur[w] & (^di.has[w] | vb[w])
				}
				choice[d] = c
			} else {
				for w := range next {
					next[w] = cur[w] &^ di.has[w]
				}
				choice[d] = -1
			}
			rec(d + 1)
		}
	}
	rec(0)
	return view
}

// leaf builds the rule of one combination, or reports it impossible. Negations
// that a positive already excludes (env!=prod next to env=dev) are left out, as in
// the seed's rendering.
// pos is scratch space for the combination's positive atoms (cap len(dims)).
func leaf(dims []*dimInfo, choice []int, matching []uint64, cs []cItem, all bool, pos []atom) (ViewRule, bool) {
	var r ViewRule
	for w := len(matching) - 1; w >= 0; w-- {
		if matching[w] != 0 {
			i := w*64 + 63 - bits.LeadingZeros64(matching[w])
			r.Matched, r.Action = true, cs[i].action
			break
		}
	}
	if !all && (!r.Matched || (!r.Action.Allows() && !r.Action.ShadowAllows())) {
		return r, false // denied by rules and shadow rules alike: no principal needed
	}
	pos = pos[:0]
	for d, c := range choice {
		if c >= 0 {
			pos = append(pos, dims[d].vals[c])
		}
	}
	for i := range pos {
		for j := i + 1; j < len(pos); j++ {
			if !compatible(pos[i], pos[j]) {
				return ViewRule{}, false
			}
		}
	}
	r.conds = make([]cond, 0, len(dims))
	for d, c := range choice {
		if c >= 0 {
			r.conds = append(r.conds, cond{atom: dims[d].vals[c]})
			continue
		}
	neg:
		for _, a := range dims[d].vals {
			for _, p := range pos {
				if implies(p, a) {
					return ViewRule{}, false
				}
				if !compatible(p, a) {
					continue neg
				}
			}
			r.conds = append(r.conds, cond{atom: a, not: true})
		}
	}
	return r, true
}

func renderConds(cs []cond, localMesh string) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		op := "="
		if c.not {
			op = "!="
		}
		switch c.atom.kind {
		case atomService:
			v := c.atom.value
			if c.atom.key != localMesh {
				v += "@" + c.atom.key
			}
			out[i] = api.ServiceTag + op + v
		case atomMesh:
			out[i] = api.LabelMesh + op + c.atom.key
		default:
			out[i] = c.atom.key + op + c.atom.value
		}
	}
	return out
}
