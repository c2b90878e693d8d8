package access

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
)

// TestSetClasses: equal rows share a destination class, equal columns a
// client class, each cell is the answer of the first members, and a
// destination past the judged ones has no class.
func TestSetClasses(t *testing.T) {
	m := &Map{Destinations: make([]MapDestination, 4), Clients: make([]MapClient, 3)}
	rows := [][]int32{{0, 1, 0}, {0, 1, 0}, {2, 1, 2}}
	SetClasses(m, []int{0, 1, 2}, rows, func(j, c int) Answer { return Answer{Decision: string(rune('a'+j)) + string(rune('0'+c))} }, -1)
	var dc, cc []int
	for _, d := range m.Destinations {
		dc = append(dc, d.Class)
	}
	for _, c := range m.Clients {
		cc = append(cc, c.Class)
	}
	if want := []int{0, 0, 1, -1}; !equal(dc, want) {
		t.Errorf("destination classes %v, want %v", dc, want)
	}
	if want := []int{0, 1, 0}; !equal(cc, want) {
		t.Errorf("client classes %v, want %v", cc, want)
	}
	// Row class 0 (rows 0, 1) has answers 0 and 1 for client classes 0 and 1,
	// row class 1 answers 2 and 1: each row is two cells, one of them its
	// default, judged once for the first client of its first class.
	cells := m.CellsByClass()
	if len(m.Cells) != 4 || cells.At(1, 1).Answer.Decision != "c1" || cells.At(0, 0).Answer.Decision != "a0" || cells.At(1, 0).Answer.Decision != "c0" {
		t.Errorf("cells %+v", m.Cells)
	}
	if _, ok := m.Cell(m.Destinations[3], m.Clients[0]); ok {
		t.Error("an unjudged destination has a cell")
	}
	// A bound of 3 units holds the first row class (two cells, one listed
	// class) but not the second.
	m = &Map{Destinations: make([]MapDestination, 4), Clients: make([]MapClient, 3)}
	cut := SetClasses(m, []int{0, 1, 2}, rows, func(j, c int) Answer { return Answer{} }, 3)
	if cut != 2 || len(m.Cells) != 2 || m.Destinations[2].Class != -1 || m.Destinations[1].Class != 0 {
		t.Errorf("bounded: cut %d, cells %+v, destinations %+v", cut, m.Cells, m.Destinations)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRowCellsSparse: a row given as its default and its exceptions gets the
// cells RowCells gives its dense ids, the default largest or not.
func TestRowCellsSparse(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for i := 0; i < 2000; i++ {
		ncc := 1 + r.Intn(12)
		def := int32(r.Intn(3))
		dense := make([]int32, ncc)
		except := map[int]int32{}
		for cc := range dense {
			dense[cc] = def
			if r.Intn(3) == 0 {
				dense[cc] = int32(r.Intn(4))
				except[cc] = dense[cc]
			}
		}
		answer := func(cc int) Answer { return Answer{Decision: fmt.Sprint(dense[cc])} }
		want, got := RowCells(1, dense, answer), RowCellsSparse(1, ncc, def, except, answer)
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("ids %v (default %d): RowCells %+v, RowCellsSparse %+v", dense, def, want, got)
		}
	}
}
