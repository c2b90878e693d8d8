package kumaauthz

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/api"
)

// The access map of a Kuma input (`meshguard map`): every destination proxy
// against every client, each cell check's answer for that pair.
//
// The work is grouped, never done per pair. Destinations selected by the same
// policies (in the same order, with the same MeshIdentity) are one row class:
// check decides them alike. Within a row class a client is judged only through
// what the merged list can test: for `from` policies the atoms of its items
// (a service, a mesh, a tag value), so clients meeting the same atoms are one
// local class and one representative of it is judged with Checker.Answer; for
// SPIFFE matchers each distinct certificate is judged. Column classes are the
// clients no row class tells apart. So the judging grows with row classes ×
// local classes, and the map with row classes × column classes.

// DefaultMaxMapCells bounds the cells (row class × column class) of a map when
// MapOptions.MaxCells is 0.
const DefaultMaxMapCells = 200000

// MapOptions tune BuildMap.
type MapOptions struct {
	// DefaultMesh, Zone are check's --default-mesh and --zone.
	DefaultMesh, Zone string
	// MaxCells bounds the cells judged (0: DefaultMaxMapCells): row classes past
	// it are listed without cells and Notes says so.
	MaxCells int
}

// The callers no workload of the input stands for, as a Kuma map's columns.
const (
	// UnlistedService is the kuma.io/service of the "another service of the
	// mesh" column: a service no workload of the input has and no policy names.
	UnlistedService = "meshguard-unlisted-service"
	// OtherMeshName is the mesh of the "another mesh" column (made unique
	// against the input's meshes).
	OtherMeshName = "meshguard-other-mesh"
)

// BuildMap is the access map of the destinations of objs (MapDestinations)
// against their client identities (MapClientOf) and the other callers: another
// service of each mesh, another mesh, and a client without a certificate.
func BuildMap(objs []*unstructured.Unstructured, ck Checker, o MapOptions, loc access.Locate) (*access.Map, error) {
	m := &access.Map{Version: access.MapVersion, Mesh: "kuma", Destinations: []access.MapDestination{}, Clients: []access.MapClient{}, Cells: []access.MapCell{}}
	if o.DefaultMesh == "" {
		o.DefaultMesh = api.DefaultMeshName
	}
	dests, notes := MapDestinations(objs, ProxyQuery{DefaultMesh: o.DefaultMesh, Zone: o.Zone})
	m.Notes = append(m.Notes, notes...)
	ck = ck.Indexed()
	clients := mapClients(dests, ck.Identities, ck.Policies)
	rows := groupRows(dests, ck)
	// Clients no row can tell apart (the same certificate as far as any row's
	// atoms see) are judged as one: rows are walked over these first classes.
	pre, preReps := preClasses(rows, clients)
	col := walkRows(rows, clients, preReps)
	colPre := classReps(col)
	colReps := make([]int, len(colPre))
	for cc, k := range colPre {
		colReps[cc] = preReps[k]
	}
	rowOf := make([]int, len(dests))
	for ri, r := range rows {
		for _, i := range r.dests {
			rowOf[i] = ri
		}
	}
	for i := range dests {
		m.Destinations = append(m.Destinations, access.MapDestination{ID: dests[i].ID, Peer: dests[i].mapPeer(), Class: rowOf[i]})
	}
	for c, cl := range clients {
		m.Clients = append(m.Clients, access.MapClient{ID: cl.id, Kind: cl.kind, Peer: cl.peer, Class: col[pre[c]]})
	}
	limit := o.MaxCells
	if limit <= 0 {
		limit = DefaultMaxMapCells
	}
	used := 0
	for ri, r := range rows {
		cells, judged, err := r.judge(ck, dests[r.dests[0]], clients, colReps, colPre, col, ri, loc)
		if err != nil {
			m.Notes = append(m.Notes, err.Error())
		}
		if used += units(cells, judged); used > limit {
			m.Notes = append(m.Notes, fmt.Sprintf("the bound of %d cells is reached: destination classes %d to %d (of %d) are listed without cells", limit, ri, len(rows)-1, len(rows)))
			break
		}
		m.Cells = append(m.Cells, cells...)
	}
	return m, nil
}

// mapClient is one column with the certificate it presents.
type mapClient struct {
	id, kind string
	peer     access.Peer
	client   Client
}

// mapClients are the destinations as callers (one per distinct certificate,
// named by the first workload presenting it), the identities the policies
// name that none of them presents, then the other callers.
func mapClients(dests []MapDest, ids []Identity, ps []Policy) []mapClient {
	var out []mapClient
	seen := map[string]bool{}
	usedID := map[string]bool{}
	meshes := []string{}
	for _, d := range dests {
		px := d.Proxy
		meshes = append(meshes, px.Mesh)
		cl := MapClientOf(px, ids)
		key := strings.Join(cl.SANs, "\n")
		if seen[key] {
			continue
		}
		seen[key] = true
		id := px.Namespace + "/" + d.Workload
		if usedID[id] {
			id = d.ID
		}
		usedID[id] = true
		out = append(out, mapClient{id: id, kind: access.ClientWorkload, client: cl,
			peer: access.Peer{SpiffeID: cl.SpiffeID, Mesh: cl.Mesh, Namespace: px.Namespace, Workload: d.Workload, Name: px.Name, Tags: cl.Tags, URISANs: cl.SANs}})
	}
	for _, n := range namedClients(ps) {
		if key := strings.Join(n.client.SANs, "\n"); !seen[key] {
			seen[key] = true
			out = append(out, n)
		}
	}
	slices.Sort(meshes)
	meshes = slices.Compact(meshes)
	for _, me := range meshes {
		tags := map[string]string{api.ServiceTag: UnlistedService}
		cl := Client{SANs: ClientSANs(me, tags), Mesh: me, Tags: tags}
		out = append(out, mapClient{id: "other-service@" + me, kind: access.ClientOtherService, client: cl,
			peer: access.Peer{Mesh: me, Tags: tags, URISANs: cl.SANs}})
	}
	other := OtherMeshName
	for slices.Contains(meshes, other) {
		other += "-x"
	}
	spiffe := "spiffe://" + other + "/" + UnlistedService
	out = append(out, mapClient{id: "other-mesh", kind: access.ClientOtherMesh, client: Client{SANs: []string{spiffe}, SpiffeID: spiffe},
		peer: access.Peer{SpiffeID: spiffe, Mesh: other, URISANs: []string{spiffe}}})
	out = append(out, mapClient{id: "unauthenticated", kind: access.ClientUnauthenticated, peer: access.Peer{Unauthenticated: true}})
	return out
}

// namedClients are the callers the policies name: each `from` item's tags
// (a MeshService's kuma.io/service among them) in its mesh, and each Exact
// SPIFFE ID of a matcher, in policy order.
func namedClients(ps []Policy) []mapClient {
	var out []mapClient
	for _, p := range ps {
		for _, f := range p.Spec.From {
			r := f.TargetRef
			if r == nil || r.Kind == api.RefMesh {
				continue
			}
			tags := copyTags(r.Tags)
			if tags == nil {
				tags = map[string]string{}
			}
			if r.Kind == api.RefMeshService || r.Kind == api.RefMeshServiceSubset {
				tags[api.ServiceTag] = r.Name
			}
			mesh := r.Mesh
			if mesh == "" {
				mesh = p.Mesh
			}
			cl := Client{SANs: ClientSANs(mesh, tags), Mesh: mesh, Tags: tags}
			out = append(out, mapClient{id: access.TagWords(tags) + "@" + mesh, kind: access.ClientNamed, client: cl,
				peer: access.Peer{Mesh: mesh, Tags: tags, URISANs: cl.SANs}})
		}
		for _, e := range SpiffeEntries(p) {
			if sm, _ := e.Match.Spiffe(); sm != nil && orExact(sm.Type) == "Exact" {
				out = append(out, mapClient{id: sm.Value, kind: access.ClientNamed, client: Client{SANs: []string{sm.Value}, SpiffeID: sm.Value},
					peer: access.Peer{SpiffeID: sm.Value, URISANs: []string{sm.Value}}})
			}
		}
	}
	return out
}

// mapRow is a row class: the destinations that the same policies configure.
type mapRow struct {
	dests []int
	sel   Selected
	// How clients are told apart: "" all alike, "atoms" by the atoms of the
	// merged `from` items, "sans" by certificate.
	mode  string
	exact map[string]int // exact URI -> atom index
	mesh  []string       // URI prefixes of mesh atoms, indexed after exact
	// sigs numbers the signatures seen (the local classes), reps are the
	// first client of each; a client's local class is found again from its
	// signature, so no row keeps a vector of every client.
	sigs map[string]int
	reps []int
	// local and zero are the local classes of a row walked sparsely
	// (walkRows): by first class for the clients the row names, zero for
	// every other; local is nil for a row walked whole.
	local map[int]int
	zero  int
}

// groupRows selects the policies of every destination and groups the
// destinations that share them.
func groupRows(dests []MapDest, ck Checker) []*mapRow {
	var rows []*mapRow
	byKey := map[string]*mapRow{}
	for i, d := range dests {
		sel := ck.Select(d.Proxy)
		key := d.Proxy.Mesh
		ready := sel.Identity != nil && sel.Identity.Ready()
		if ready {
			key += "\x00identity " + sel.Identity.Ref()
		}
		for _, p := range sel.Policies {
			key += "\x00" + p.Ref()
		}
		r := byKey[key]
		if r == nil {
			r = &mapRow{sel: sel}
			r.setMode(d.Proxy.Mesh, ready)
			byKey[key] = r
			rows = append(rows, r)
		}
		r.dests = append(r.dests, i)
	}
	return rows
}

// setMode finds what the row's merged list can test of a client.
func (r *mapRow) setMode(mesh string, identity bool) {
	ps := r.sel.Policies
	switch {
	case identity || usesMatchers(ps):
		r.mode = "sans"
		if identity && !usesMatchers(ps) {
			r.mode = "" // no `rules` policy: every client is denied alike
		}
	case len(ps) > 0:
		r.mode = "atoms"
		r.exact = map[string]int{}
		cs, err := toItems(MergeFrom(ps), mesh)
		if err != nil {
			r.mode = "sans" // judged one certificate at a time; the answer carries the error
			return
		}
		for _, c := range cs {
			for _, a := range c.atoms {
				u := a.uri()
				if a.kind == atomMesh {
					if !slices.Contains(r.mesh, u) {
						r.mesh = append(r.mesh, u)
					}
				} else if _, ok := r.exact[u]; !ok {
					r.exact[u] = len(r.exact)
				}
			}
		}
	}
}

// signature is what the row's merged list can see of cl: clients with the same
// signature are decided alike by the row.
func (r *mapRow) signature(cl Client) string {
	switch r.mode {
	case "sans":
		return strings.Join(cl.SANs, "\n")
	case "atoms":
		bits := make([]byte, len(r.exact)+len(r.mesh))
		for _, s := range cl.SANs {
			if i, ok := r.exact[s]; ok {
				bits[i] = 1
			}
			for j, u := range r.mesh {
				if strings.HasPrefix(s, u) {
					bits[len(r.exact)+j] = 1
				}
			}
		}
		return string(bits)
	}
	return ""
}

// preClasses groups the clients that every row sees alike: by what the atoms
// of all `from` rows together test of their certificates, or by certificate
// when some row uses SPIFFE matchers. pre is each client's class, reps the
// first client of each.
func preClasses(rows []*mapRow, clients []mapClient) (pre, reps []int) {
	all := &mapRow{exact: map[string]int{}}
	for _, r := range rows {
		switch r.mode {
		case "sans":
			all.mode = "sans"
		case "atoms":
			if all.mode == "" {
				all.mode = "atoms"
			}
			for u := range r.exact {
				if _, ok := all.exact[u]; !ok {
					all.exact[u] = len(all.exact)
				}
			}
			for _, u := range r.mesh {
				if !slices.Contains(all.mesh, u) {
					all.mesh = append(all.mesh, u)
				}
			}
		}
	}
	return access.ClassesByKey(len(clients), func(c int) string { return all.signature(clients[c].client) })
}

// judge is the row's cells: each local class judged once, with
// Checker.Answer for the row's first destination and the class's first
// client, and the column classes grouped by answer (access.RowCells); judged
// is how many answers it computed.
func (r *mapRow) judge(ck Checker, d MapDest, clients []mapClient, colReps, colPre, col []int, ri int, loc access.Locate) (cells []access.MapCell, judged int, err error) {
	// Local classes the row tells apart are often decided by the same item
	// (a deny-all for most of them): equal answers are one cell.
	seen := map[string]int32{}
	answers := make([]int32, len(r.reps))
	for k := range answers {
		answers[k] = -1
	}
	var distinct []access.Answer
	answerOf := func(l int) (int32, error) {
		if answers[l] >= 0 {
			return answers[l], nil
		}
		a, err := ck.Answer(d.Proxy, r.sel, d.Workload, clients[r.reps[l]].client, access.Request{}, loc)
		if err != nil {
			return 0, fmt.Errorf("%s: %v", d.ID, err)
		}
		judged++
		a.Client = access.Peer{}
		b, _ := json.Marshal(&a)
		id, ok := seen[string(b)]
		if !ok {
			id = int32(len(distinct))
			seen[string(b)] = id
			distinct = append(distinct, a)
		}
		answers[l] = id
		return id, nil
	}
	if r.local != nil && r.zero >= 0 {
		// A row walked sparsely: the column classes of the clients it names,
		// and a default for every other.
		except := map[int]int32{}
		for k, l := range r.local {
			if except[col[k]], err = answerOf(l); err != nil {
				return nil, judged, err
			}
		}
		def, err := answerOf(r.zero)
		if err != nil {
			return nil, judged, err
		}
		return access.RowCellsSparse(ri, len(colReps), def, except, func(cc int) access.Answer {
			if id, ok := except[cc]; ok {
				return distinct[id]
			}
			return distinct[def]
		}), judged, nil
	}
	ids := make([]int32, len(colReps))
	for cc, rep := range colReps {
		if ids[cc], err = answerOf(r.localOf(colPre[cc], clients[rep].client)); err != nil {
			return nil, judged, err
		}
	}
	return access.RowCells(ri, ids, func(cc int) access.Answer { return distinct[ids[cc]] }), judged, nil
}

// units is what a row's cells count against MaxCells: a cell for each answer
// judged, and each client class a cell lists (the row's default lists none).
func units(cells []access.MapCell, judged int) int {
	n := judged
	for _, c := range cells {
		n += len(c.ClientClasses)
	}
	return n
}

// classReps is the first member of each class of col (classes numbered in
// order of first member).
func classReps(col []int) []int {
	var reps []int
	for i, c := range col {
		if c == len(reps) {
			reps = append(reps, i)
		}
	}
	return reps
}
