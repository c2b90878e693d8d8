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
				cell := cells[[2]int{d.Class, c.Class}]
				if cell == nil {
					t.Fatalf("set %d: no cell for %s × %s", s, d.ID, c.ID)
				}
				if diff := cmp.Diff(verdictOf(want), verdictOf(cell.Full())); diff != "" {
					t.Fatalf("set %d: %s × %s (-check +map):\n%s\n%s", s, d.ID, c.ID, diff, set)
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

// TestMapBound: past MaxPairs the remaining destinations get no class and no
// cells, and the notes say from which destination on.
func TestMapBound(t *testing.T) {
	objs := objects(t, randomLinkerdSet(rand.New(rand.NewSource(3)))+"\n---\n"+
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w, namespace: ns}\nspec:\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, ports: [{containerPort: 8080}, {containerPort: 9090}]}]}")
	full, err := BuildMap(objs, MapOptions{}, mapLocate)
	if err != nil {
		t.Fatal(err)
	}
	m, err := BuildMap(objs, MapOptions{MaxPairs: len(full.Clients)}, mapLocate)
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Destinations) != 2 || m.Destinations[1].Class != -1 || len(m.Notes) == 0 || !strings.Contains(m.Notes[len(m.Notes)-1], "the bound of") {
		t.Errorf("bounded map: %+v, notes %q", m.Destinations, m.Notes)
	}
}
