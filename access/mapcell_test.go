package access_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/internal/mapsynth"
)

// sharedMap is a map whose cells share answers as the engines' builders
// share them, with strings JSON escapes, a shadow item, notes, a row's
// default (Others) and a cell without an answer.
func sharedMap() *access.Map {
	by := access.Item{Kind: "MeshTrafficPermission", Policy: "shop/<a&b>", Path: "spec.from[0]", File: "p.yaml", Line: 3}
	allow := &access.Answer{Mesh: "kuma", Decision: "ALLOW", ShadowDecision: "DENY", DecidedBy: by, ShadowDecidedBy: &by,
		Destination: access.Peer{Namespace: "shop", Tags: map[string]string{"app": "web"}}, Merged: []access.Item{by}, Notes: []string{"\u2028 <!--"}}
	deny := &access.Answer{Mesh: "kuma", Decision: "DENY", DecidedBy: access.Item{Policy: access.DefaultPolicy}, Default: true}
	m := &access.Map{Version: access.MapVersion, Mesh: "kuma", Destinations: []access.MapDestination{}, Clients: []access.MapClient{}}
	m.Cells = append(m.Cells, access.MapCell{DestinationClass: 0, ClientClasses: []int{0, 2}, Answer: allow},
		access.MapCell{DestinationClass: 0, Others: true, Answer: deny},
		access.MapCell{DestinationClass: 1, ClientClasses: []int{1}, Answer: allow},
		access.MapCell{DestinationClass: 1, Others: true, Answer: deny},
		access.MapCell{DestinationClass: 2, ClientClasses: []int{0}})
	return m
}

// TestWriteJSON: the map written cell by cell is byte for byte
// json.MarshalIndent's, and it reads back to the same cells.
func TestWriteJSON(t *testing.T) {
	for name, m := range map[string]*access.Map{"shared": sharedMap(), "synth": mapsynth.Map(60, 4), "empty": {Mesh: "kuma", Cells: []access.MapCell{}}} {
		want, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		if err := m.WriteJSON(&got); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want)+"\n" {
			t.Errorf("%s: WriteJSON differs from MarshalIndent:\n%s", name, cmp.Diff(string(want)+"\n", got.String()))
		}
		var back access.Map
		if err := json.Unmarshal(want, &back); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(m.Cells, back.Cells); diff != "" {
			t.Errorf("%s: cells read back (-written +read):\n%s", name, diff)
		}
	}
	if s := string(must(json.Marshal(sharedMap().Cells[1]))); s != `{"destinationClass":0,"others":true,"answer":{"mesh":"kuma","decision":"DENY","destination":{},"request":{},"decidedBy":{"policy":"default"},"default":true}}` {
		t.Errorf("a row's default cell: %s", s)
	}
}

// TestCellIndex: a pair finds the cell that lists its client class, else its
// row's default, and nothing for a class the map does not have or a row
// without cells; PairAnswer names the pair's client as check names it.
func TestCellIndex(t *testing.T) {
	m := sharedMap()
	for i := range 3 {
		m.Clients = append(m.Clients, access.MapClient{ID: string(rune('a' + i)), Class: i,
			Peer: access.Peer{Namespace: "shop", Workload: "Deployment/a", Mesh: "default", Tags: map[string]string{"app": "a"}}})
	}
	ix := m.CellsByClass()
	for _, tc := range []struct {
		d, c int
		want *access.MapCell
	}{{0, 0, &m.Cells[0]}, {0, 2, &m.Cells[0]}, {0, 1, &m.Cells[1]}, {1, 1, &m.Cells[2]}, {1, 0, &m.Cells[3]},
		{2, 0, &m.Cells[4]}, {2, 1, nil}, {0, 3, nil}, {3, 0, nil}, {-1, 0, nil}} {
		if got := ix.At(tc.d, tc.c); got != tc.want {
			t.Errorf("At(%d, %d) = %+v, want %+v", tc.d, tc.c, got, tc.want)
		}
	}
	a := m.PairAnswer(&m.Cells[0], m.Clients[1])
	if want := (access.Peer{Mesh: "default", Tags: map[string]string{"app": "a"}}); !cmp.Equal(a.Client, want) || a.Decision != "ALLOW" {
		t.Errorf("PairAnswer: %+v", a)
	}
	if m.Cells[0].Answer.Client.Mesh != "" {
		t.Error("PairAnswer changed the shared answer")
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
