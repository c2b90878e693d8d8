package mapsynth

import (
	"testing"

	"github.com/meshguard/meshguard/access"
)

// TestMapsKeepTheContract: every pair has a cell, a class's cell names its
// first destination and client, and every change says what the two maps say.
func TestMapsKeepTheContract(t *testing.T) {
	c := Change(60, 3)
	for _, m := range []*access.Map{c.Old, c.New} {
		for _, d := range m.Destinations {
			for _, cl := range m.Clients {
				if _, ok := m.Cell(d, cl); !ok {
					t.Fatalf("no cell for %s from %s", d.ID, cl.ID)
				}
			}
		}
	}
	kinds := map[string]int{}
	for _, ch := range c.Changes {
		kinds[ch.Kind]++
		want := map[string][2]string{access.CellOpened: {"DENY", "ALLOW"}, access.CellClosed: {"ALLOW", "DENY"}}[ch.Kind]
		if want[0] != "" && (ch.Old.Decision != want[0] || ch.New.Decision != want[1]) {
			t.Errorf("%s %s from %s: %s -> %s", ch.Kind, ch.Destination, ch.Client, ch.Old.Decision, ch.New.Decision)
		}
		if ch.Kind == access.CellRule && (ch.Old.Decision != ch.New.Decision || ch.Old.DecidedBy == ch.New.DecidedBy) {
			t.Errorf("rule change %s from %s keeps its rule or changes its verdict", ch.Destination, ch.Client)
		}
	}
	if kinds[access.CellOpened] == 0 || kinds[access.CellClosed] == 0 || kinds[access.CellRule] == 0 {
		t.Errorf("changes by kind %v, want some of each of opened, closed, rule-changed", kinds)
	}
}
