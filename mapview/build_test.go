package mapview

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/access"
)

// The maps the page's tests draw, until the engines build them: a builder that
// groups rows and columns into classes as the contract says (rows with the same
// answers share a class, so do columns), a fixture of real `meshguard check -o
// json` answers, and a synthetic generator of large maps.

// grid is every judged pair's answer: answers[d][c], nil where not judged.
type grid struct {
	mesh    string
	dests   []access.MapDestination
	clients []access.MapClient
	answers [][]*access.Answer
}

// sameness is what must agree for two pairs to share a cell: the answer
// without the client and destination it names.
func sameness(a *access.Answer) string {
	if a == nil {
		return "-"
	}
	b := *a
	b.Client, b.Destination = access.Peer{}, access.Peer{}
	data, _ := json.Marshal(b)
	return string(data)
}

// classes numbers the distinct signatures in order of first appearance.
func classes(n int, sig func(i int) string) []int {
	out := make([]int, n)
	seen := map[string]int{}
	for i := range n {
		s := sig(i)
		c, ok := seen[s]
		if !ok {
			c = len(seen)
			seen[s] = c
		}
		out[i] = c
	}
	return out
}

// build makes the map of g: classes, and one cell per pair of classes holding
// the answer of the first destination and first client of each.
func (g grid) build() *access.Map {
	rows := classes(len(g.dests), func(d int) string {
		var b strings.Builder
		for c := range g.clients {
			b.WriteString(sameness(g.answers[d][c]) + "\n")
		}
		return b.String()
	})
	cols := classes(len(g.clients), func(c int) string {
		var b strings.Builder
		for d := range g.dests {
			fmt.Fprintf(&b, "%d:%s\n", rows[d], sameness(g.answers[d][c]))
		}
		return b.String()
	})
	m := &access.Map{Version: access.MapVersion, Mesh: g.mesh}
	for i, d := range g.dests {
		d.Class = rows[i]
		m.Destinations = append(m.Destinations, d)
	}
	for i, c := range g.clients {
		c.Class = cols[i]
		m.Clients = append(m.Clients, c)
	}
	done := map[[2]int]bool{}
	for d := range g.dests {
		for c := range g.clients {
			k := [2]int{rows[d], cols[c]}
			if done[k] || g.answers[d][c] == nil {
				continue
			}
			done[k] = true
			m.Cells = append(m.Cells, access.NewMapCell(k[0], []int{k[1]}, *g.answers[d][c]))
		}
	}
	return m
}

// kumaFixture is the map of the real answers `meshguard check` gave for every
// pair of six workloads (testdata/gen-kuma-answers.sh).
func kumaFixture(t testing.TB) *access.Map {
	t.Helper()
	m := answersFixture(t, "kuma-answers.json", "kuma", func(a access.Answer) (string, access.MapClient) {
		_, name := access.SplitRef(a.Destination.Workload)
		ns, app := a.Client.Tags["k8s.kuma.io/namespace"], a.Client.Tags["app"]
		peer := a.Client
		peer.Namespace, peer.Workload = ns, "Deployment/"+app
		return a.Destination.Namespace + "/" + name + ":8080", access.MapClient{ID: ns + "/" + app, Kind: access.ClientWorkload, Peer: peer}
	})
	m.Notes = []string{"fixture: the answers of meshguard check on examples/check/kuma and mapview/testdata/kuma-workloads.yaml"}
	return m
}

// linkerdFixture is the map of check's real answers for the three ports of
// examples/check/linkerd's web pods and four clients
// (testdata/gen-linkerd-answers.sh).
func linkerdFixture(t testing.TB) *access.Map {
	t.Helper()
	return answersFixture(t, "linkerd-answers.json", "linkerd", func(a access.Answer) (string, access.MapClient) {
		_, name := access.SplitRef(a.Destination.Workload)
		dest := a.Destination.Namespace + "/" + name + ":" + a.Destination.Port
		if a.Client.Unauthenticated {
			return dest, access.MapClient{ID: "unauthenticated " + a.Client.IP, Kind: access.ClientUnauthenticated, Peer: a.Client}
		}
		sa, rest, _ := strings.Cut(a.Client.Identity, ".")
		ns, _, _ := strings.Cut(rest, ".")
		peer := a.Client
		peer.Namespace, peer.Name = ns, sa
		return dest, access.MapClient{ID: ns + "/" + sa, Kind: access.ClientWorkload, Peer: peer}
	})
}

// answersFixture reads a stream of check's answers and builds their map; ids
// names each answer's destination and client.
func answersFixture(t testing.TB, file, mesh string, ids func(access.Answer) (string, access.MapClient)) *access.Map {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g := grid{mesh: mesh}
	dIdx, cIdx := map[string]int{}, map[string]int{}
	type pair struct {
		d, c int
		a    access.Answer
	}
	var pairs []pair
	dec := json.NewDecoder(f)
	for {
		var a access.Answer
		if err := dec.Decode(&a); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		did, client := ids(a)
		if _, ok := dIdx[did]; !ok {
			dIdx[did] = len(g.dests)
			g.dests = append(g.dests, access.MapDestination{ID: did, Peer: a.Destination})
		}
		if _, ok := cIdx[client.ID]; !ok {
			cIdx[client.ID] = len(g.clients)
			g.clients = append(g.clients, client)
		}
		pairs = append(pairs, pair{dIdx[did], cIdx[client.ID], a})
	}
	g.answers = make([][]*access.Answer, len(g.dests))
	for d := range g.answers {
		g.answers[d] = make([]*access.Answer, len(g.clients))
	}
	for _, p := range pairs {
		g.answers[p.d][p.c] = &p.a
	}
	return g.build()
}

// TestBuilderClasses holds the test builder to the contract it stands in for:
// every destination and client of the fixture has a cell, and the cell's answer
// is the one check gave for that very pair, up to the names of the peers.
func TestBuilderClasses(t *testing.T) {
	m := kumaFixture(t)
	if len(m.Destinations) != 6 || len(m.Clients) != 6 {
		t.Fatalf("fixture: %d destinations, %d clients, want 6 and 6", len(m.Destinations), len(m.Clients))
	}
	classes := map[int]bool{}
	for _, d := range m.Destinations {
		classes[d.Class] = true
		for _, c := range m.Clients {
			if _, ok := m.Cell(d, c); !ok {
				t.Errorf("no cell for %s from %s", d.ID, c.ID)
			}
		}
	}
	if len(classes) >= len(m.Destinations) {
		t.Errorf("no two destinations share a class: %d classes of %d", len(classes), len(m.Destinations))
	}
}
