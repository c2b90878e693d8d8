package compile

import (
	"encoding/binary"
	"math/bits"
)

// The client classes of a diff. Two merged lists (old and new) are laid side by
// side as one list of conditions on a client; a client is described by one class
// per dimension (a tag key, the identity, a string such as the SPIFFE ID), and
// whether it meets a condition depends only on its class in the condition's
// dimension. A combination of one class per dimension is a set of clients that
// every condition of both lists treats alike, so its decision in each list is one
// decision: enumerating the combinations enumerates every client, without
// sampling. The enumeration is depth first, one dimension per level, carrying
// the set of conditions still met as a bitset; classes of a dimension that leave
// the same set are taken together (a cell then holds several classes of that
// dimension), and once the remaining dimensions cannot change which condition
// decides, the cell stops there. Cells therefore are the combinations the
// policies can tell apart, not the full product of the dimensions.

// classDim is one dimension of the clients: its classes and, per class, the
// conditions of the dimension that a client of the class meets.
type classDim struct {
	// has is the set of conditions that test this dimension.
	has []uint64
	// vals are the classes; vals[i] is the set of conditions of has that a client
	// of class i meets.
	vals [][]uint64
}

// sideEval says how a side (a word range of the bitset) decides: last match
// (`from` lists) lets a settled condition hide every earlier one.
type sideEval struct {
	w0, w1   int // word range
	lastWins bool
}

// cell is a set of clients no condition of either list tells apart: per
// dimension the classes it holds (nil: all of them), and the conditions met.
type cell struct {
	choice [][]int
	met    []uint64
}

// classEnum enumerates cells.
type classEnum struct {
	dims    []classDim
	words   int
	settled [][]uint64 // settled[d]: conditions that test no dimension ≥ d
	sides   []sideEval
	limit   int
	cells   []cell
	path    [][]int
	over    bool
}

// newClassEnum prepares the enumeration of dims over conditions laid out in words
// words. lastDim[i] is the highest dimension condition i tests (-1: none).
func newClassEnum(dims []classDim, words int, lastDim []int, sides []sideEval, limit int) *classEnum {
	e := &classEnum{dims: dims, words: words, sides: sides, limit: limit, path: make([][]int, len(dims))}
	e.settled = make([][]uint64, len(dims)+1)
	for d := range e.settled {
		s := make([]uint64, words)
		for i, ld := range lastDim {
			if ld < d {
				s[i/64] |= 1 << (i % 64)
			}
		}
		e.settled[d] = s
	}
	return e
}

// run enumerates from the conditions start (the ones a client can meet at all);
// ok is false when more than limit cells exist.
func (e *classEnum) run(start []uint64) (cells []cell, ok bool) {
	cand := append([]uint64(nil), start...)
	e.canon(cand, 0)
	e.rec(0, cand)
	return e.cells, !e.over
}

// canon drops, on a last-match side, every condition below the highest one that
// no remaining dimension can unset: it decides whenever the lower ones would.
func (e *classEnum) canon(cand []uint64, d int) {
	st := e.settled[d]
	for _, s := range e.sides {
		if !s.lastWins {
			continue
		}
		for w := s.w1 - 1; w >= s.w0; w-- {
			m := cand[w] & st[w]
			if m == 0 {
				continue
			}
			b := 63 - bits.LeadingZeros64(m)
			cand[w] &^= (uint64(1) << b) - 1
			for x := s.w0; x < w; x++ {
				cand[x] = 0
			}
			break
		}
	}
}

// done reports whether no remaining dimension can change cand.
func (e *classEnum) done(cand []uint64, d int) bool {
	st := e.settled[d]
	for w, c := range cand {
		if c&^st[w] != 0 {
			return false
		}
	}
	return true
}

func (e *classEnum) rec(d int, cand []uint64) {
	if e.over {
		return
	}
	if d == len(e.dims) || e.done(cand, d) {
		if len(e.cells) >= e.limit {
			e.over = true
			return
		}
		c := cell{met: cand, choice: make([][]int, len(e.dims))}
		copy(c.choice, e.path)
		e.cells = append(e.cells, c)
		return
	}
	dim := e.dims[d]
	type branch struct {
		next   []uint64
		choice []int
	}
	var order []*branch
	byKey := map[string]*branch{}
	var kb []byte
	for v, vb := range dim.vals {
		next := make([]uint64, e.words)
		for w := range next {
			next[w] = cand[w] & (^dim.has[w] | vb[w])
		}
		e.canon(next, d+1)
		kb = kb[:0]
		for _, w := range next {
			kb = binary.LittleEndian.AppendUint64(kb, w)
		}
		if b, ok := byKey[string(kb)]; ok {
			b.choice = append(b.choice, v)
			continue
		}
		b := &branch{next: next, choice: []int{v}}
		byKey[string(kb)] = b
		order = append(order, b)
	}
	for _, b := range order {
		if len(b.choice) == len(dim.vals) {
			e.path[d] = nil // every class: no condition on this dimension
		} else {
			e.path[d] = b.choice
		}
		e.rec(d+1, b.next)
		if e.over {
			return
		}
	}
	e.path[d] = nil
}

// bitset helpers.

func setBit(b []uint64, i int) { b[i/64] |= 1 << (i % 64) }

func hasBit(b []uint64, i int) bool { return b[i/64]&(1<<(i%64)) != 0 }

// topBit is the highest set bit in words [w0, w1), or -1.
func topBit(b []uint64, w0, w1 int) int {
	for w := w1 - 1; w >= w0; w-- {
		if b[w] != 0 {
			return w*64 + 63 - bits.LeadingZeros64(b[w])
		}
	}
	return -1
}
