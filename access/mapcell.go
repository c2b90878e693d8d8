package access

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// NewMapCell is a cell of destination class d answering the client classes
// ccs with its own copy of a, the client left out (a cell stands for many
// clients; Map.PairAnswer puts one back).
func NewMapCell(d int, ccs []int, a Answer) MapCell {
	a.Client = Peer{}
	return MapCell{DestinationClass: d, ClientClasses: ccs, Answer: &a}
}

// WriteJSON writes m exactly as json.MarshalIndent(m, "", "  ") would, cell by
// cell, so a large map is never one buffer in memory.
func (m *Map) WriteJSON(w io.Writer) error {
	head := *m
	head.Cells = []MapCell{}
	b, err := json.MarshalIndent(&head, "", "  ")
	if err != nil {
		return err
	}
	const empty = "\n  \"cells\": []"
	before, after, found := bytes.Cut(b, []byte(empty))
	if !found || len(m.Cells) == 0 {
		if b, err = json.MarshalIndent(m, "", "  "); err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}
	bw := bufio.NewWriter(w)
	bw.Write(before)
	bw.WriteString("\n  \"cells\": [")
	for i := range m.Cells {
		if i > 0 {
			bw.WriteString(",")
		}
		b, err := json.MarshalIndent(&m.Cells[i], "    ", "  ")
		if err != nil {
			return err
		}
		bw.WriteString("\n    ")
		bw.Write(b)
	}
	bw.WriteString("\n  ]")
	bw.Write(after)
	bw.WriteString("\n")
	return bw.Flush()
}
