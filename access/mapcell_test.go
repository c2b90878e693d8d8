package access_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/internal/mapsynth"
)

// sharedMap is a map whose cells share answers and clients as the engines'
// builders share them, with strings JSON escapes, a shadow item, notes and a
// cell without an answer.
func sharedMap() *access.Map {
	by := access.Item{Kind: "MeshTrafficPermission", Policy: "shop/<a&b>", Path: "spec.from[0]", File: "p.yaml", Line: 3}
	allow := &access.Answer{Mesh: "kuma", Decision: "ALLOW", ShadowDecision: "DENY", DecidedBy: by, ShadowDecidedBy: &by,
		Destination: access.Peer{Namespace: "shop", Tags: map[string]string{"app": "web"}}, Merged: []access.Item{by}, Notes: []string{"\u2028 <!--"}}
	deny := &access.Answer{Mesh: "kuma", Decision: "DENY", DecidedBy: access.Item{Policy: access.DefaultPolicy}, Default: true}
	peers := []access.Peer{{Mesh: "default", Tags: map[string]string{"kuma.io/service": "a"}, URISANs: []string{"spiffe://default/a"}}, {Unauthenticated: true}, {}}
	m := &access.Map{Version: access.MapVersion, Mesh: "kuma", Destinations: []access.MapDestination{}, Clients: []access.MapClient{}}
	for d := range 2 {
		for c := range peers {
			a := allow
			if (d+c)%2 == 1 {
				a = deny
			}
			m.Cells = append(m.Cells, access.MapCell{DestinationClass: d, ClientClass: c, Answer: a, Client: &peers[c]})
		}
	}
	m.Cells = append(m.Cells, access.MapCell{DestinationClass: 2, ClientClass: 0})
	return m
}

// TestWriteJSON: the map written cell by cell, each shared answer and client
// marshalled once, is byte for byte json.MarshalIndent's, whose cells hold
// the whole answer with the cell's client; and it reads back to the same
// answers.
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
		for i := range m.Cells {
			if diff := cmp.Diff(m.Cells[i].Full(), back.Cells[i].Full()); diff != "" {
				t.Errorf("%s: cell %d read back (-written +read):\n%s", name, i, diff)
			}
		}
	}
	if s := string(must(json.Marshal(sharedMap().Cells[1]))); !strings.Contains(s, `"client":{"unauthenticated":true}`) {
		t.Errorf("a cell's JSON has its own client in its answer: %s", s)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
