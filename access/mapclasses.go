package access

import (
	"encoding/binary"
)

// SetClasses fills m's destination and client classes and its cells from a
// judged matrix, for an engine that judges every client against each distinct
// destination: rows[j][c] names the cell (any number; equal numbers, equal
// decision and deciding items) of judged row j and client c, destRow[i] is the
// judged row of m.Destinations[i] (a destination past len(destRow) was not
// judged: class -1, no cells), and answer(j, c) is the Answer of that pair.
// Destinations (clients) whose rows (columns) are equal share a class,
// numbered in order of first member; each cell is the answer for the first
// destination and first client of its classes.
func SetClasses(m *Map, destRow []int, rows [][]int32, answer func(row, client int) Answer) {
	rowClass := make([]int, len(rows))
	rowFirst := []int{}
	seen := map[string]int{}
	for j, r := range rows {
		k := int32Key(r)
		c, ok := seen[k]
		if !ok {
			c = len(rowFirst)
			seen[k] = c
			rowFirst = append(rowFirst, j)
		}
		rowClass[j] = c
	}
	for i := range m.Destinations {
		m.Destinations[i].Class = -1
		if i < len(destRow) {
			m.Destinations[i].Class = rowClass[destRow[i]]
		}
	}
	colFirst := []int{}
	seen = map[string]int{}
	col := make([]int32, len(rows))
	for c := range m.Clients {
		for j, r := range rows {
			col[j] = r[c]
		}
		k := int32Key(col)
		cc, ok := seen[k]
		if !ok {
			cc = len(colFirst)
			seen[k] = cc
			colFirst = append(colFirst, c)
		}
		m.Clients[c].Class = cc
	}
	for rc, j := range rowFirst {
		for cc, c := range colFirst {
			m.Cells = append(m.Cells, NewMapCell(rc, cc, answer(j, c)))
		}
	}
}

func int32Key(r []int32) string {
	b := make([]byte, 0, 4*len(r))
	for _, v := range r {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return string(b)
}
