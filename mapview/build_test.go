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
			m.Cells = append(m.Cells, access.MapCell{DestinationClass: k[0], ClientClass: k[1], Answer: *g.answers[d][c]})
		}
	}
	return m
}

// kumaFixture is the map of the real answers `meshguard check` gave for every
// pair of six workloads (testdata/gen-kuma-answers.sh).
func kumaFixture(t testing.TB) *access.Map {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "kuma-answers.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g := grid{mesh: "kuma"}
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
		_, name := access.SplitRef(a.Destination.Workload)
		did := a.Destination.Namespace + "/" + name + ":8080"
		if _, ok := dIdx[did]; !ok {
			dIdx[did] = len(g.dests)
			g.dests = append(g.dests, access.MapDestination{ID: did, Peer: a.Destination})
		}
		cid := a.Client.Tags["k8s.kuma.io/namespace"] + "/" + a.Client.Tags["app"]
		if _, ok := cIdx[cid]; !ok {
			cIdx[cid] = len(g.clients)
			g.clients = append(g.clients, access.MapClient{ID: cid, Kind: access.ClientWorkload, Peer: a.Client})
		}
		pairs = append(pairs, pair{dIdx[did], cIdx[cid], a})
	}
	g.answers = make([][]*access.Answer, len(g.dests))
	for d := range g.answers {
		g.answers[d] = make([]*access.Answer, len(g.clients))
	}
	for _, p := range pairs {
		g.answers[p.d][p.c] = &p.a
	}
	m := g.build()
	m.Notes = []string{"fixture: the answers of meshguard check on examples/check/kuma and mapview/testdata/kuma-workloads.yaml"}
	return m
}

// synth is a generated map of n workloads in k namespaces, each a destination
// (port 8080) and a client, plus the three client kinds that are not workloads.
// Destinations fall into three classes per namespace and clients into two, as
// a mesh whose policies are written per namespace and tier would; every cell
// names a policy, its item, file and line, and a merged chain of three.
func synth(n, k int) *access.Map {
	m := &access.Map{Version: access.MapVersion, Mesh: "kuma"}
	ns := func(i int) string { return fmt.Sprintf("team-%02d", i%k) }
	for i := range n {
		peer := access.Peer{Mesh: "default", Namespace: ns(i), Workload: fmt.Sprintf("Deployment/app-%04d", i), Port: "8080"}
		m.Destinations = append(m.Destinations, access.MapDestination{
			ID: fmt.Sprintf("%s/app-%04d:8080", ns(i), i), Peer: peer, Class: (i%k)*3 + (i/k)%3})
	}
	for i := range n {
		peer := access.Peer{Mesh: "default", Namespace: ns(i), Name: fmt.Sprintf("app-%04d", i),
			SpiffeID: fmt.Sprintf("spiffe://default/app-%04d_%s_svc_8080", i, ns(i))}
		m.Clients = append(m.Clients, access.MapClient{ID: fmt.Sprintf("%s/app-%04d", ns(i), i),
			Kind: access.ClientWorkload, Peer: peer, Class: (i%k)*2 + (i/k)%2})
	}
	extra := []access.MapClient{
		{ID: "unauthenticated", Kind: access.ClientUnauthenticated, Peer: access.Peer{Unauthenticated: true}},
		{ID: "mesh:other", Kind: access.ClientOtherMesh, Peer: access.Peer{Mesh: "other", SpiffeID: "spiffe://other/any"}},
		{ID: "10.0.0.0/8", Kind: access.ClientNetwork, Peer: access.Peer{IP: "10.0.0.0/8"}},
	}
	for i, c := range extra {
		c.Class = 2*k + i
		m.Clients = append(m.Clients, c)
	}
	firstDest, firstClient := map[int]access.MapDestination{}, map[int]access.MapClient{}
	for _, d := range m.Destinations {
		if _, ok := firstDest[d.Class]; !ok {
			firstDest[d.Class] = d
		}
	}
	for _, c := range m.Clients {
		if _, ok := firstClient[c.Class]; !ok {
			firstClient[c.Class] = c
		}
	}
	for dc := 0; dc < 3*k; dc++ {
		for cc := 0; cc < 2*k+len(extra); cc++ {
			d, okd := firstDest[dc]
			c, okc := firstClient[cc]
			if !okd || !okc {
				continue
			}
			m.Cells = append(m.Cells, access.MapCell{DestinationClass: dc, ClientClass: cc, Answer: synthAnswer(d, c, dc, cc)})
		}
	}
	return m
}

func synthAnswer(d access.MapDestination, c access.MapClient, dc, cc int) access.Answer {
	team := d.Peer.Namespace
	chain := []access.Item{
		{Kind: "MeshTrafficPermission", Policy: "kuma-system/deny-all", File: "mesh/policies.yaml", Line: 4},
		{Kind: "MeshTrafficPermission", Policy: team + "/allow-team", File: team + "/policies.yaml", Line: 2},
		{Kind: "MeshTrafficPermission", Policy: fmt.Sprintf("%s/tier-%d", team, dc%3), File: team + "/policies.yaml", Line: 30 + dc%3*20},
	}
	a := access.Answer{Mesh: "kuma", Decision: "DENY", Client: c.Peer, Destination: d.Peer, Filter: "network", Form: "expanded", Merged: chain}
	a.DecidedBy = access.Item{Kind: "MeshTrafficPermission", Policy: "kuma-system/deny-all", Path: "spec.from[0]", Action: "Deny", Match: "all clients", File: "mesh/policies.yaml", Line: 13}
	switch {
	case c.Kind != access.ClientWorkload:
	case c.Peer.Namespace == team && (cc+dc)%4 != 0:
		a.Decision = "ALLOW"
		a.DecidedBy = access.Item{Kind: "MeshTrafficPermission", Policy: team + "/allow-team", Path: "spec.from[0]", Action: "Allow", Match: "k8s.kuma.io/namespace=" + team, File: team + "/policies.yaml", Line: 11}
	case (cc*7+dc)%5 == 0:
		a.Decision = "ALLOW"
		a.DecidedBy = access.Item{Kind: "MeshTrafficPermission", Policy: fmt.Sprintf("%s/tier-%d", team, dc%3), Path: "spec.from[1]", Action: "AllowWithShadowDeny", Match: "k8s.kuma.io/namespace=" + c.Peer.Namespace, File: team + "/policies.yaml", Line: 40 + dc%3*20}
		a.ShadowDecision = "DENY"
	}
	if a.ShadowDecision == "" {
		a.ShadowDecision = a.Decision
	}
	shadow := a.DecidedBy
	a.ShadowDecidedBy = &shadow
	return a
}

// synthChange changes the map of synth(n, k): team-00's first destination
// class closes to team-00's first client class and opens to unauthenticated
// callers, and team-01's keeps its verdict for team-01's first client class
// under another rule.
func synthChange(n, k int) *access.MapChange {
	old, cur := synth(n, k), synth(n, k)
	changed := map[[2]int]string{}
	for i := range cur.Cells {
		cell := &cur.Cells[i]
		switch {
		case cell.DestinationClass == 0 && cell.ClientClass == 0 && cell.Answer.Decision == "ALLOW":
			cell.Answer.Decision, cell.Answer.ShadowDecision = "DENY", "DENY"
			cell.Answer.DecidedBy = access.Item{Kind: "MeshTrafficPermission", Policy: "team-00/lockdown", Path: "spec.from[0]", Action: "Deny", Match: "all clients", File: "team-00/lockdown.yaml", Line: 9}
			changed[[2]int{0, 0}] = access.CellClosed
		case cell.DestinationClass == 0 && cell.ClientClass == 2*k && cell.Answer.Decision == "DENY":
			cell.Answer.Decision, cell.Answer.ShadowDecision = "ALLOW", "ALLOW"
			cell.Answer.DecidedBy = access.Item{Kind: "MeshTrafficPermission", Policy: "team-00/open-health", Path: "spec.from[0]", Action: "Allow", Match: "all clients", File: "team-00/health.yaml", Line: 12}
			changed[[2]int{0, 2 * k}] = access.CellOpened
		case k > 1 && cell.DestinationClass == 3 && cell.ClientClass == 2:
			cell.Answer.DecidedBy.Policy += "-v2"
			cell.Answer.DecidedBy.Line++
			changed[[2]int{3, 2}] = access.CellRule
		default:
			continue
		}
		by := cell.Answer.DecidedBy
		cell.Answer.ShadowDecidedBy = &by
	}
	c := &access.MapChange{Version: access.MapVersion, Old: old, New: cur}
	for _, d := range cur.Destinations {
		for _, cl := range cur.Clients {
			kind, ok := changed[[2]int{d.Class, cl.Class}]
			if !ok {
				continue
			}
			o, _ := old.Cell(d, cl)
			nw, _ := cur.Cell(d, cl)
			c.Changes = append(c.Changes, access.MapCellChange{Kind: kind, Destination: d.ID, Client: cl.ID, Old: &o.Answer, New: &nw.Answer})
		}
	}
	return c
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
