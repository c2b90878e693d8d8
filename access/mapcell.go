package access

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// NewMapCell is a cell holding its own copy of a (and of a's client), for a
// builder that does not share answers between cells.
func NewMapCell(destinationClass, clientClass int, a Answer) MapCell {
	cl := a.Client
	a.Client = Peer{}
	return MapCell{DestinationClass: destinationClass, ClientClass: clientClass, Answer: &a, Client: &cl}
}

// Full is check's answer for the cell: its shared answer with its client.
func (c *MapCell) Full() Answer {
	var a Answer
	if c.Answer != nil {
		a = *c.Answer
	}
	if c.Client != nil {
		a.Client = *c.Client
	}
	return a
}

// cellJSON is a cell's documented JSON shape.
type cellJSON struct {
	DestinationClass int    `json:"destinationClass"`
	ClientClass      int    `json:"clientClass"`
	Answer           Answer `json:"answer"`
}

// MarshalJSON writes the cell as docs/map.md documents it: the classes and
// the whole answer, its client included.
func (c MapCell) MarshalJSON() ([]byte, error) {
	return json.Marshal(cellJSON{DestinationClass: c.DestinationClass, ClientClass: c.ClientClass, Answer: c.Full()})
}

// UnmarshalJSON reads a cell MarshalJSON wrote, into answers of its own.
func (c *MapCell) UnmarshalJSON(b []byte) error {
	var j cellJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*c = NewMapCell(j.DestinationClass, j.ClientClass, j.Answer)
	return nil
}

// WriteJSON writes m exactly as json.MarshalIndent(m, "", "  ") would, cell by
// cell, so a map of hundreds of thousands of cells is never one buffer in
// memory; each shared answer and client is marshalled once and copied into
// every cell that holds it (a cell is a few bytes to write, not a walk of the
// Answer's fields by reflection).
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
	cw := newCellWriter()
	bw := bufio.NewWriter(w)
	bw.Write(before)
	bw.WriteString("\n  \"cells\": [")
	for i := range m.Cells {
		if i > 0 {
			bw.WriteString(",")
		}
		if err := cw.write(bw, &m.Cells[i]); err != nil {
			return err
		}
	}
	bw.WriteString("\n  ]")
	bw.Write(after)
	bw.WriteString("\n")
	return bw.Flush()
}

// The indentation of a cell's parts in WriteJSON's output: cells are at depth
// 2 of the map, their answer's fields at depth 4.
const (
	cellIndent   = "    "
	answerIndent = cellIndent + "  "
	clientIndent = answerIndent + "  "
	// clientHole is the client's place in an answer marshalled without it.
	clientHole = "\n" + clientIndent + "\"client\": {}"
)

// cellWriter writes cells as MarshalIndent does, remembering the JSON of each
// shared answer (split around its client) and of each shared client.
type cellWriter struct {
	answers map[*Answer][2][]byte
	clients map[*Peer][]byte
}

func newCellWriter() *cellWriter {
	return &cellWriter{answers: map[*Answer][2][]byte{}, clients: map[*Peer][]byte{}}
}

// write writes "\n    " and the cell.
func (cw *cellWriter) write(bw *bufio.Writer, c *MapCell) error {
	if c.Answer == nil || c.Client == nil {
		b, err := json.MarshalIndent(c, cellIndent, "  ")
		if err != nil {
			return err
		}
		bw.WriteString("\n" + cellIndent)
		_, err = bw.Write(b)
		return err
	}
	parts, ok := cw.answers[c.Answer]
	if !ok {
		a := *c.Answer
		a.Client = Peer{}
		b, err := json.MarshalIndent(&a, answerIndent, "  ")
		if err != nil {
			return err
		}
		head, tail, found := bytes.Cut(b, []byte(clientHole))
		if !found {
			return fmt.Errorf("map cell %d/%d: the answer's JSON has no client field", c.DestinationClass, c.ClientClass)
		}
		parts = [2][]byte{append(head, clientHole[:len(clientHole)-2]...), tail}
		cw.answers[c.Answer] = parts
	}
	client, ok := cw.clients[c.Client]
	if !ok {
		b, err := json.MarshalIndent(c.Client, clientIndent, "  ")
		if err != nil {
			return err
		}
		client = b
		cw.clients[c.Client] = client
	}
	bw.WriteString("\n" + cellIndent + "{\n" + answerIndent + "\"destinationClass\": ")
	bw.WriteString(strconv.Itoa(c.DestinationClass))
	bw.WriteString(",\n" + answerIndent + "\"clientClass\": ")
	bw.WriteString(strconv.Itoa(c.ClientClass))
	bw.WriteString(",\n" + answerIndent + "\"answer\": ")
	bw.Write(parts[0])
	bw.Write(client)
	bw.Write(parts[1])
	_, err := bw.WriteString("\n" + cellIndent + "}")
	return err
}
