// Package classes enumerates the classes of clients two decision lists can tell
// apart: the engine under `meshguard diff` for Kuma (compile) and Linkerd (authz).
package classes

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
// the same set are taken together (a Cell then holds several classes of that
// dimension), and once the remaining dimensions cannot change which condition
// decides, the Cell stops there. Cells therefore are the combinations the
// policies can tell apart, not the full product of the dimensions.

// Dim is one dimension of the clients: its classes and, per class, the
// conditions of the dimension that a client of the class meets.
type Dim struct {
	// Has is the set of conditions that test this dimension.
	Has []uint64
	// Vals are the classes; Vals[i] is the set of conditions of Has that a client
	// of class i meets.
	Vals [][]uint64
}

// Side says how a side (a word range of the bitset) decides: last match
// (`from` lists) lets a settled condition hide every earlier one.
type Side struct {
	W0, W1   int // word range
	LastWins bool
}

// Cell is a set of clients no condition of either list tells apart: per
// dimension the classes it holds (nil: all of them), and the conditions met.
type Cell struct {
	Choice [][]int
	Met    []uint64
}

// Enum enumerates cells.
type Enum struct {
	dims    []Dim
	words   int
	settled [][]uint64 // settled[d]: conditions that test no dimension ≥ d
	sides   []Side
	limit   int
	cells   []Cell
	path    [][]int
	over    bool
}

// NewEnum prepares the enumeration of dims over conditions laid out in words
// words. lastDim[i] is the highest dimension condition i tests (-1: none).
func NewEnum(dims []Dim, words int, lastDim []int, sides []Side, limit int) *Enum {
	e := &Enum{dims: dims, words: words, sides: sides, limit: limit, path: make([][]int, len(dims))}
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

// Run enumerates from the conditions start (the ones a client can meet at all);
// ok is false when more than limit cells exist.
func (e *Enum) Run(start []uint64) (cells []Cell, ok bool) {
	cand := append([]uint64(nil), start...)
	e.canon(cand, 0)
	e.rec(0, cand)
	return e.cells, !e.over
}

// canon drops, on a last-match side, every condition below the highest one that
// no remaining dimension can unset: it decides whenever the lower ones would.
func (e *Enum) canon(cand []uint64, d int) {
	st := e.settled[d]
	for _, s := range e.sides {
		if !s.LastWins {
			continue
		}
		for w := s.W1 - 1; w >= s.W0; w-- {
			m := cand[w] & st[w]
			if m == 0 {
				continue
			}
			b := 63 - bits.LeadingZeros64(m)
			cand[w] &^= (uint64(1) << b) - 1
			for x := s.W0; x < w; x++ {
				cand[x] = 0
			}
			break
		}
	}
}

// done reports whether no remaining dimension can change cand.
func (e *Enum) done(cand []uint64, d int) bool {
	st := e.settled[d]
	for w, c := range cand {
		if c&^st[w] != 0 {
			return false
		}
	}
	return true
}

func (e *Enum) rec(d int, cand []uint64) {
	if e.over {
		return
	}
	if d == len(e.dims) || e.done(cand, d) {
		if len(e.cells) >= e.limit {
			e.over = true
			return
		}
		c := Cell{Met: cand, Choice: make([][]int, len(e.dims))}
		copy(c.Choice, e.path)
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
	for v, vb := range dim.Vals {
		next := make([]uint64, e.words)
		for w := range next {
			next[w] = cand[w] & (^dim.Has[w] | vb[w])
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
		if len(b.choice) == len(dim.Vals) {
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

// SetBit sets bit i.
func SetBit(b []uint64, i int) { b[i/64] |= 1 << (i % 64) }

// HasBit reports whether bit i is set.
func HasBit(b []uint64, i int) bool { return b[i/64]&(1<<(i%64)) != 0 }

// TopBit is the highest set bit in words [w0, w1), or -1.
func TopBit(b []uint64, w0, w1 int) int {
	for w := w1 - 1; w >= w0; w-- {
		if b[w] != 0 {
			return w*64 + 63 - bits.LeadingZeros64(b[w])
		}
	}
	return -1
}
