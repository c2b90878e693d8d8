package linkerdauthz

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/access"
)

// randomMapWorkloads draws workloads for randomLinkerdSet's Server (app: web,
// port 8080, namespace ns): in ns and another namespace, selected or not, with
// a second port some Server may not take, ServiceAccounts a, b (which the
// authorizations may name), c, d (which they never name) or none, and a
// default-policy annotation on some pods and on the namespace.
func randomMapWorkloads(r *rand.Rand) string {
	pick := func(l ...string) string { return l[r.Intn(len(l))] }
	var docs []string
	for i, n := 0, 1+r.Intn(5); i < n; i++ {
		ann := pick("", "", `annotations: {config.linkerd.io/default-inbound-policy: all-authenticated}`, `annotations: {config.linkerd.io/default-inbound-policy: deny}`)
		ports := pick("[{containerPort: 8080}]", "[{containerPort: 8080, name: http}, {containerPort: 9090}]", "[{containerPort: 9090}]")
		docs = append(docs, fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w%d, namespace: %s}\nspec:\n  template:\n    metadata: {labels: {app: %s}, %s}\n    spec:\n      %s\n      containers: [{name: c, ports: %s}]",
			i, pick("ns", "ns", "other"), pick("web", "web", "api"), ann, pick("serviceAccountName: a", "serviceAccountName: b", "serviceAccountName: c", "serviceAccountName: d", ""), ports))
	}
	if r.Intn(3) == 0 {
		docs = append(docs, "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns, annotations: {config.linkerd.io/default-inbound-policy: cluster-unauthenticated}}")
	}
	return strings.Join(docs, "\n---\n")
}

func mapLocate(kind, ns, name, path string) (string, int) {
	return kind + "/" + ns + "/" + name + ".yaml", len(name) + len(path)
}

// TestMapCellsAreCheckAnswers holds every cell of random maps to Decide's
// answer for that destination and client alone, as check asks it (the
// workload, the port, the caller parsed from --from or --from-ip).
func TestMapCellsAreCheckAnswers(t *testing.T) {
	r := rand.New(rand.NewSource(31))
	pairs, shared, grouped := 0, 0, 0
	for s := 0; s < 300; s++ {
		set := randomLinkerdSet(r) + "\n---\n" + randomMapWorkloads(r)
		objs := objects(t, set)
		m, err := BuildMap(objs, MapOptions{}, mapLocate)
		if err != nil {
			t.Fatal(err)
		}
		_, reps := preClients(newIndex(objs), mapClients(newIndex(objs), Options{}), Options{})
		grouped += len(m.Clients) - len(reps)
		cells := m.CellsByClass()
		for _, d := range m.Destinations {
			for _, c := range m.Clients {
				from := ""
				if !c.Peer.Unauthenticated {
					from = c.Peer.Namespace + "/" + c.Peer.Name
				}
				caller, err := ParseCaller(from, c.Peer.IP, "")
				if err != nil {
					t.Fatal(err)
				}
				dst := Destination{Namespace: d.Peer.Namespace, Workload: d.Peer.Workload}
				dst.Port = int64(len(d.Peer.Port)) // replaced below
				fmt.Sscan(d.Peer.Port, &dst.Port)
				dec, err := Decide(objs, caller, dst, Request{}, Options{})
				if err != nil {
					t.Fatal(err)
				}
				want := dec.Answer(caller, dst, d.Peer.Port, access.Request{}, mapLocate)
				cell := cells.At(d.Class, c.Class)
				if cell == nil {
					t.Fatalf("set %d: no cell for %s × %s", s, d.ID, c.ID)
				}
				got := m.PairAnswer(cell, c)
				if diff := cmp.Diff(verdictOf(want), verdictOf(got)); diff != "" {
					t.Fatalf("set %d: %s × %s (-check +map):\n%s\n%s", s, d.ID, c.ID, diff, set)
				}
				if diff := cmp.Diff(want.Client, got.Client); diff != "" {
					t.Fatalf("set %d: %s × %s: the pair's client (-check +map):\n%s", s, d.ID, c.ID, diff)
				}
				pairs++
			}
		}
		for i, c := range m.Clients {
			if c.Class < i {
				shared++
			}
		}
	}
	t.Logf("%d pairs, %d clients judged through another client of their group", pairs, grouped)
	if pairs < 3000 || shared == 0 || grouped < 50 {
		t.Errorf("only %d pairs compared, %d clients sharing a column class, %d judged through another client", pairs, shared, grouped)
	}
}

func verdictOf(a access.Answer) map[string]any {
	return map[string]any{"decision": a.Decision, "by": a.DecidedBy, "server": a.Server, "route": a.Route, "default": a.Default, "considered": a.Considered}
}

// TestMapBound: past MaxCells (answers judged, cells and the client classes
// they list) the remaining destinations get no class and no cells, and the
// notes say from which destination on; a small map is never bounded.
func TestMapBound(t *testing.T) {
	objs := objects(t, randomLinkerdSet(rand.New(rand.NewSource(3)))+"\n---\n"+
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w, namespace: ns}\nspec:\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, ports: [{containerPort: 8080}, {containerPort: 9090}]}]}")
	full, err := BuildMap(objs, MapOptions{}, mapLocate)
	if err != nil {
		t.Fatal(err)
	}
	if hasBoundNote(full.Notes) {
		t.Fatalf("a small map reached the bound: %q", full.Notes)
	}
	m, err := BuildMap(objs, MapOptions{MaxCells: 1}, mapLocate)
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Destinations) != 2 || m.Destinations[1].Class != -1 || !hasBoundNote(m.Notes) {
		t.Errorf("bounded map: %+v, notes %q", m.Destinations, m.Notes)
	}
}

func hasBoundNote(notes []string) bool {
	return len(notes) > 0 && strings.Contains(notes[len(notes)-1], "the bound of")
}
