package kumaauthz

import (
	"slices"
)

// walkRows finds each row's local classes (the clients its merged list tells
// apart, r.sigs and r.reps) over the first classes preReps, and returns the
// column class of each first class: two stay in one class only when every row
// agrees, numbered in order of first member.
//
// A row that tests only exact certificate URIs (no mesh atom, or no policy)
// sees every client holding none of them alike: the clients holding one are
// found through an index of URIs, and the others are one local class without
// being walked, so the walk grows with the clients a row names, not with every
// client class (issue 31: 4,999 rows × 15,000 first classes at 10,000
// workloads whose policies name services). Other rows walk every first class.
func walkRows(rows []*mapRow, clients []mapClient, preReps []int) []int {
	col := make([]int, len(preReps))
	next := 1 // class numbers handed out; renumbered at the end
	var bySAN map[string][]int
	for _, r := range rows {
		r.sigs = map[string]int{}
		if r.mode == "sans" || len(r.mesh) > 0 {
			split := map[[2]int]int{}
			for k, c := range preReps {
				col[k] = r.splitInto(split, col[k], r.localClass(k, c, clients), &next)
			}
			continue
		}
		if bySAN == nil {
			bySAN = map[string][]int{}
			for k, c := range preReps {
				for _, s := range clients[c].client.SANs {
					bySAN[s] = append(bySAN[s], k)
				}
			}
		}
		var touched []int
		for u := range r.exact {
			touched = append(touched, bySAN[u]...)
		}
		slices.Sort(touched)
		touched = slices.Compact(touched)
		r.local = make(map[int]int, len(touched))
		r.zero = -1
		// The untouched clients' class is numbered at its first member, as a
		// walk of every client would number it.
		untouched := 0
		split := map[[2]int]int{}
		for _, k := range touched {
			if untouched == k {
				untouched++
			}
			l := r.localClass(k, preReps[k], clients)
			r.local[k] = l
			col[k] = r.splitInto(split, col[k], l, &next)
		}
		if untouched < len(preReps) {
			r.zero = r.localClass(untouched, preReps[untouched], clients)
		}
	}
	// Renumber in order of first member.
	ids := map[int]int{}
	for k, c := range col {
		id, ok := ids[c]
		if !ok {
			id = len(ids)
			ids[c] = id
		}
		col[k] = id
	}
	return col
}

// localClass is the row's local class of first class k (client c), added
// (with c as its representative) when the row has not seen its signature.
func (r *mapRow) localClass(k, c int, clients []mapClient) int {
	s := r.signature(clients[c].client)
	l, ok := r.sigs[s]
	if !ok {
		l = len(r.sigs)
		r.sigs[s] = l
		r.reps = append(r.reps, c)
	}
	return l
}

// splitInto is the class, after this row, of a first class in class old whose
// local class is l: one new class per (old, l) pair of the row.
func (r *mapRow) splitInto(split map[[2]int]int, old, l int, next *int) int {
	key := [2]int{old, l}
	id, ok := split[key]
	if !ok {
		id = *next
		*next++
		split[key] = id
	}
	return id
}

// localOf is the row's local class of first class k (client cl): from the
// clients the row names, else the row's class of the others, for a row that
// was not walked whole; from cl's signature for the others.
func (r *mapRow) localOf(k int, cl Client) int {
	if r.local != nil {
		if l, ok := r.local[k]; ok {
			return l
		}
		return r.zero
	}
	return r.sigs[r.signature(cl)]
}
