package access

import (
	"encoding/binary"
	"slices"
)

// SetClasses fills m's destination and client classes and its cells from a
// judged matrix, for an engine that judges every client against each distinct
// destination: rows[j][c] names the cell (any number; equal numbers, equal
// decision and deciding items) of judged row j and client c, destRow[i] is the
// judged row of m.Destinations[i] (a destination past len(destRow) was not
// judged: class -1, no cells), and answer(j, c) is the Answer of that pair.
// Destinations (clients) whose rows (columns) are equal share a class,
// numbered in order of first member; a row class's client classes are grouped
// by cell number (RowCells), each group's answer the one for the first
// destination and first client of its classes. limit bounds the cells in
// RowCells' units (a cell, and each client class it lists; negative: no
// bound): the row
// classes past it get no cells and their destinations class -1, and
// SetClasses returns the first of those destinations (-1: none).
func SetClasses(m *Map, destRow []int, rows [][]int32, answer func(row, client int) Answer, limit int) (cut int) {
	rowClass, rowFirst := ClassesByKey(len(rows), func(j int) string { return int32Key(rows[j]) })
	for i := range m.Destinations {
		m.Destinations[i].Class = -1
		if i < len(destRow) {
			m.Destinations[i].Class = rowClass[destRow[i]]
		}
	}
	col := make([]int32, len(rows))
	colClass, colFirst := ClassesByKey(len(m.Clients), func(c int) string {
		for j, r := range rows {
			col[j] = r[c]
		}
		return int32Key(col)
	})
	for c := range m.Clients {
		m.Clients[c].Class = colClass[c]
	}
	m.Cells = []MapCell{}
	ids := make([]int32, len(colFirst))
	used := 0
	for rc, j := range rowFirst {
		for cc, c := range colFirst {
			ids[cc] = rows[j][c]
		}
		if limit >= 0 {
			if used += rowUnits(ids); used > limit {
				return cutFrom(m, rc)
			}
		}
		m.Cells = append(m.Cells, RowCells(rc, ids, func(cc int) Answer { return answer(j, colFirst[cc]) })...)
	}
	return -1
}

// rowUnits is what RowCells of ids count against a bound: a cell per
// distinct id, and each client class outside the largest group (the default).
func rowUnits(ids []int32) int {
	n := map[int32]int{}
	largest := 0
	for _, id := range ids {
		n[id]++
		largest = max(largest, n[id])
	}
	return len(n) + len(ids) - largest
}

// cutFrom gives the destinations of row class rc and after class -1 and
// returns the first of them.
func cutFrom(m *Map, rc int) int {
	first := -1
	for i := range m.Destinations {
		if m.Destinations[i].Class >= rc {
			m.Destinations[i].Class = -1
			if first < 0 {
				first = i
			}
		}
	}
	return first
}

// ClassesByKey numbers n items by key(i) in order of first appearance:
// class[i] is item i's class and first[k] the first item of class k. The map's
// destinations and clients are grouped by what decides their answers this way,
// here and in the engines.
func ClassesByKey(n int, key func(i int) string) (class, first []int) {
	class = make([]int, n)
	first = []int{}
	seen := map[string]int{}
	for i := range n {
		k := key(i)
		c, ok := seen[k]
		if !ok {
			c = len(first)
			seen[k] = c
			first = append(first, i)
		}
		class[i] = c
	}
	return class, first
}

// RowCells are the cells of destination class d: ids[cc] names client class
// cc's answer (equal ids, equal answers), and the client classes of one id
// are one cell, whose answer is answer(its first client class). The largest
// group is the row's default (MapCell.Others), so a row costs its distinct
// answers and the classes that are not its default.
func RowCells(d int, ids []int32, answer func(cc int) Answer) []MapCell {
	group := map[int32]int{}
	var members [][]int
	for cc, id := range ids {
		g, ok := group[id]
		if !ok {
			g = len(members)
			group[id] = g
			members = append(members, nil)
		}
		members[g] = append(members[g], cc)
	}
	largest := 0
	for g := range members {
		if len(members[g]) > len(members[largest]) {
			largest = g
		}
	}
	return groupCells(d, members, largest, answer)
}

// groupCells makes a cell of each group of client classes of destination class
// d, answered by its first class; group others is the row's default
// (MapCell.Others) and lists no classes.
func groupCells(d int, members [][]int, others int, answer func(cc int) Answer) []MapCell {
	out := make([]MapCell, 0, len(members))
	for g, ccs := range members {
		c := NewMapCell(d, ccs, answer(ccs[0]))
		if g == others {
			c.ClientClasses, c.Others = nil, true
		}
		out = append(out, c)
	}
	return out
}

func int32Key(r []int32) string {
	b := make([]byte, 0, 4*len(r))
	for _, v := range r {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return string(b)
}

// RowCellsSparse is RowCells of a row given as its default and its
// exceptions: every client class of ncc has id def but those of except. It
// returns the same cells as RowCells of the dense ids, at the cost of the
// exceptions when the default is the row's largest group (the common case: a
// row names a few callers), so an engine need not visit every client class of
// every row.
func RowCellsSparse(d, ncc int, def int32, except map[int]int32, answer func(cc int) Answer) []MapCell {
	var listed []int
	for cc, id := range except {
		if id != def && cc >= 0 && cc < ncc {
			listed = append(listed, cc)
		}
	}
	slices.Sort(listed)
	inListed := func(cc int) bool { _, ok := slices.BinarySearch(listed, cc); return ok }
	first := 0
	for first < ncc && inListed(first) {
		first++
	}
	group := map[int32]int{}
	var ids []int32
	var members [][]int
	add := func(id int32, cc int) {
		g, ok := group[id]
		if !ok {
			g = len(members)
			group[id] = g
			members = append(members, nil)
			ids = append(ids, id)
		}
		members[g] = append(members[g], cc)
	}
	defaults := ncc - len(listed)
	for _, cc := range listed {
		if defaults > 0 && first < cc {
			add(def, first)
			first = ncc // the default group is placed
		}
		add(except[cc], cc)
	}
	if defaults > 0 && first < ncc {
		add(def, first)
	}
	largest := -1
	for g := range members {
		n := len(members[g])
		if ids[g] == def {
			n = defaults
		}
		if largest < 0 || n > sizeOf(members, ids, largest, def, defaults) {
			largest = g
		}
	}
	if largest >= 0 && ids[largest] != def && defaults > 0 {
		// The default is not the largest group: list it, as RowCells would.
		dense := make([]int32, ncc)
		for cc := range dense {
			dense[cc] = def
		}
		for _, cc := range listed {
			dense[cc] = except[cc]
		}
		return RowCells(d, dense, answer)
	}
	return groupCells(d, members, largest, answer)
}

// sizeOf is the size of group g, the default group counting every class
// not listed.
func sizeOf(members [][]int, ids []int32, g int, def int32, defaults int) int {
	if ids[g] == def {
		return defaults
	}
	return len(members[g])
}
