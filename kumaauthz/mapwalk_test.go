package kumaauthz

import (
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWalkRowsSparse: the column classes walkRows finds, walking only the
// clients a row names where it can, are those of a walk of every client by
// every row (a class per distinct vector of local classes, numbered in order
// of first member), and the rows that test only exact URIs were not walked
// whole: they hold the local classes of the clients they name alone.
func TestWalkRowsSparse(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	sparse, named := 0, 0
	for s := 0; s < 150; s++ {
		all := objs(t, randomMapObjects(r))
		ck := Checker{Policies: randomTopPolicies(r, r.Intn(8))}.Indexed()
		dests, _ := MapDestinations(all, ProxyQuery{DefaultMesh: "default"})
		clients := mapClients(dests, ck.Identities, ck.Policies)
		rows := groupRows(dests, ck)
		_, preReps := preClasses(rows, clients)
		got := walkRows(rows, clients, preReps)
		vectors := make([]string, len(preReps))
		for _, row := range rows {
			for k, c := range preReps {
				vectors[k] += row.signature(clients[c].client) + "\x00"
			}
			if row.local != nil {
				sparse++
				named += len(row.local)
				if len(row.local) == len(preReps) && len(preReps) > 2 {
					t.Fatalf("set %d: a sparse row holds every client", s)
				}
			}
		}
		want := make([]int, len(preReps))
		ids := map[string]int{}
		for k, v := range vectors {
			id, ok := ids[v]
			if !ok {
				id = len(ids)
				ids[v] = id
			}
			want[k] = id
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("set %d: column classes (-every client walked +walkRows):\n%s", s, diff)
		}
	}
	if sparse == 0 {
		t.Error("no row was walked sparsely")
	}
	t.Logf("%d rows walked sparsely, naming %d clients in all", sparse, named)
}
