package access

// CellIndex finds the cell of a (destination class, client class) pair in
// constant time, for renderers that walk the pairs: the cells list a row's
// exceptions and its default (MapCell.Others), so the index keeps per
// destination class its default cell and a map of the listed client classes,
// its memory following the cells, not the class pairs.
type CellIndex struct {
	rows []cellRow
	// first is the first client (index into Map.Clients) of each client class.
	first []int
	m     *Map
}

type cellRow struct {
	others *MapCell
	listed map[int]*MapCell
}

// CellsByClass indexes the cells of m by destination class and client class.
func (m *Map) CellsByClass() *CellIndex {
	ix := &CellIndex{m: m}
	for _, d := range m.Destinations {
		if d.Class >= len(ix.rows) {
			ix.rows = append(ix.rows, make([]cellRow, d.Class+1-len(ix.rows))...)
		}
	}
	for i := range m.Cells {
		c := &m.Cells[i]
		if c.DestinationClass < 0 {
			continue
		}
		if c.DestinationClass >= len(ix.rows) {
			ix.rows = append(ix.rows, make([]cellRow, c.DestinationClass+1-len(ix.rows))...)
		}
		r := &ix.rows[c.DestinationClass]
		if c.Others {
			r.others = c
			continue
		}
		if r.listed == nil {
			r.listed = make(map[int]*MapCell, len(c.ClientClasses))
		}
		for _, cc := range c.ClientClasses {
			r.listed[cc] = c
		}
	}
	for i, c := range m.Clients {
		if c.Class < 0 {
			continue
		}
		for c.Class >= len(ix.first) {
			ix.first = append(ix.first, -1)
		}
		if ix.first[c.Class] < 0 {
			ix.first[c.Class] = i
		}
	}
	return ix
}

// At is the cell of destination class d and client class c, nil when the map
// did not judge that pair.
func (ix *CellIndex) At(d, c int) *MapCell {
	if ix == nil || d < 0 || c < 0 || d >= len(ix.rows) {
		return nil
	}
	r := &ix.rows[d]
	if cell, ok := r.listed[c]; ok {
		return cell
	}
	if c < len(ix.first) && ix.first[c] >= 0 {
		return r.others
	}
	return nil
}

// ClassAnswer is check's answer for destination class d and the first client
// of client class c (a cell's answer with that client, as version 1's cells
// held it), nil when the pair was not judged.
func (ix *CellIndex) ClassAnswer(d, c int) *Answer {
	cell := ix.At(d, c)
	if cell == nil || cell.Answer == nil {
		return nil
	}
	a := ix.m.PairAnswer(cell, ix.m.Clients[ix.first[c]])
	return &a
}

// PairAnswer is check's answer for a destination of cell's class and client
// c: the cell's answer with c as its client, as check names a client (its
// identity: the Peer without the namespace, workload, name, section and port
// that only the map shows).
func (m *Map) PairAnswer(cell *MapCell, c MapClient) Answer {
	var a Answer
	if cell.Answer != nil {
		a = *cell.Answer
	}
	a.Client = AnswerPeer(c.Peer)
	return a
}

// AnswerPeer is p as an answer names its client: its identity alone.
func AnswerPeer(p Peer) Peer {
	p.Namespace, p.Workload, p.Name, p.Section, p.Port = "", "", "", "", ""
	return p
}
