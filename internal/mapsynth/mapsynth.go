// Package mapsynth generates access maps of any size, shaped like a mesh whose
// permissions are written per namespace and tier, so that the HTML page
// (mapview) can be tested and measured at 2,000 workloads before, and
// independently of, the engines that build real maps. Its maps follow the
// contract of access.Map: classes of rows and columns, a row's client classes
// grouped by answer (Map) or one cell per pair of classes (the new side of
// Change), answers that name a deciding item, file and line.
package mapsynth

import (
	"encoding/json"
	"fmt"

	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/api"
)

// Map is a generated map of n workloads in k namespaces, each a destination
// (port 8080) and a client, plus the three client kinds that are not workloads.
// Destinations fall into three classes per namespace and clients into two, as
// a mesh whose policies are written per namespace and tier would; every cell
// names a policy, its item, file and line, and a merged chain of three.
func Map(n, k int) *access.Map { return build(n, k, true) }

// build is Map, its cells grouped by answer per row or one per class pair.
func build(n, k int, grouped bool) *access.Map {
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
	ncc := 2*k + len(extra)
	for dc := 0; dc < 3*k; dc++ {
		d, ok := firstDest[dc]
		if !ok {
			continue
		}
		if !grouped {
			for cc := range ncc {
				m.Cells = append(m.Cells, access.NewMapCell(dc, []int{cc}, answer(d, firstClient[cc], dc, cc)))
			}
			continue
		}
		ids, seen := make([]int32, ncc), map[string]int32{}
		for cc := range ncc {
			a := answer(d, firstClient[cc], dc, cc)
			a.Client = access.Peer{}
			b, _ := json.Marshal(a)
			id, ok := seen[string(b)]
			if !ok {
				id = int32(len(seen))
				seen[string(b)] = id
			}
			ids[cc] = id
		}
		m.Cells = append(m.Cells, access.RowCells(dc, ids, func(cc int) access.Answer { return answer(d, firstClient[cc], dc, cc) })...)
	}
	return m
}

func answer(d access.MapDestination, c access.MapClient, dc, cc int) access.Answer {
	team := d.Peer.Namespace
	chain := []access.Item{
		{Kind: api.KindMeshTrafficPermission, Policy: "kuma-system/deny-all", File: "mesh/policies.yaml", Line: 4},
		{Kind: api.KindMeshTrafficPermission, Policy: team + "/allow-team", File: team + "/policies.yaml", Line: 2},
		{Kind: api.KindMeshTrafficPermission, Policy: fmt.Sprintf("%s/tier-%d", team, dc%3), File: team + "/policies.yaml", Line: 30 + dc%3*20},
	}
	a := access.Answer{Mesh: "kuma", Decision: "DENY", Client: c.Peer, Destination: d.Peer, Filter: "network", Form: "expanded", Merged: chain}
	a.DecidedBy = access.Item{Kind: api.KindMeshTrafficPermission, Policy: "kuma-system/deny-all", Path: "spec.from[0]", Action: "Deny", Match: "all clients", File: "mesh/policies.yaml", Line: 13}
	switch {
	case c.Kind != access.ClientWorkload:
	case c.Peer.Namespace == team && (cc+dc)%4 != 0:
		a.Decision = "ALLOW"
		a.DecidedBy = access.Item{Kind: api.KindMeshTrafficPermission, Policy: team + "/allow-team", Path: "spec.from[0]", Action: "Allow", Match: "k8s.kuma.io/namespace=" + team, File: team + "/policies.yaml", Line: 11}
	case (cc*7+dc)%5 == 0:
		a.Decision = "ALLOW"
		a.DecidedBy = access.Item{Kind: api.KindMeshTrafficPermission, Policy: fmt.Sprintf("%s/tier-%d", team, dc%3), Path: "spec.from[1]", Action: "AllowWithShadowDeny", Match: "k8s.kuma.io/namespace=" + c.Peer.Namespace, File: team + "/policies.yaml", Line: 40 + dc%3*20}
		a.ShadowDecision = "DENY"
	}
	if a.ShadowDecision == "" {
		a.ShadowDecision = a.Decision
	}
	shadow := a.DecidedBy
	a.ShadowDecidedBy = &shadow
	return a
}

// Change changes the map of Map(n, k): team-00's first destination
// class closes to team-00's first client class and opens to unauthenticated
// callers, and team-01's keeps its verdict for team-01's first client class
// under another rule.
func Change(n, k int) *access.MapChange {
	old, cur := Map(n, k), build(n, k, false)
	changed := map[[2]int]string{}
	for i := range cur.Cells {
		cell := &cur.Cells[i]
		switch {
		case cell.DestinationClass == 0 && cell.ClientClasses[0] == 0 && cell.Answer.Decision == "ALLOW":
			cell.Answer.Decision, cell.Answer.ShadowDecision = "DENY", "DENY"
			cell.Answer.DecidedBy = access.Item{Kind: api.KindMeshTrafficPermission, Policy: "team-00/lockdown", Path: "spec.from[0]", Action: "Deny", Match: "all clients", File: "team-00/lockdown.yaml", Line: 9}
			changed[[2]int{0, 0}] = access.CellClosed
		case cell.DestinationClass == 0 && cell.ClientClasses[0] == 2*k && cell.Answer.Decision == "DENY":
			cell.Answer.Decision, cell.Answer.ShadowDecision = "ALLOW", "ALLOW"
			cell.Answer.DecidedBy = access.Item{Kind: api.KindMeshTrafficPermission, Policy: "team-00/open-health", Path: "spec.from[0]", Action: "Allow", Match: "all clients", File: "team-00/health.yaml", Line: 12}
			changed[[2]int{0, 2 * k}] = access.CellOpened
		case k > 1 && cell.DestinationClass == 3 && cell.ClientClasses[0] == 2:
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
	oc, nc := old.CellsByClass(), cur.CellsByClass()
	for _, d := range cur.Destinations {
		for _, cl := range cur.Clients {
			kind, ok := changed[[2]int{d.Class, cl.Class}]
			if !ok {
				continue
			}
			c.Changes = append(c.Changes, access.MapCellChange{Kind: kind, Destination: d.ID, Client: cl.ID,
				Old: oc.ClassAnswer(d.Class, cl.Class), New: nc.ClassAnswer(d.Class, cl.Class)})
		}
	}
	return c
}
