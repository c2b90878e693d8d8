package access

import (
	"encoding/binary"
	"encoding/json"
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
	// Cells share equal answers and each client class's client (MapCell).
	shared := map[string]*Answer{}
	peers := make([]*Peer, len(colFirst))
	m.Cells = make([]MapCell, 0, len(rowFirst)*len(colFirst))
	for rc, j := range rowFirst {
		for cc, c := range colFirst {
			cell := NewMapCell(rc, cc, answer(j, c))
			if peers[cc] == nil {
				peers[cc] = cell.Client
			}
			cell.Client = peers[cc]
			if b, err := json.Marshal(cell.Answer); err == nil {
				if a, ok := shared[string(b)]; ok {
					cell.Answer = a
				} else {
					shared[string(b)] = cell.Answer
				}
			}
			m.Cells = append(m.Cells, cell)
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
