package linkerdauthz

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/api"
)

// The access map of a Linkerd input (`meshguard map`): every workload and
// container port (a Server's port or one the default policy decides) against
// every ServiceAccount of the input and the callers that are not workloads of
// it, each cell Decide's answer for that pair, as `meshguard check --to
// Kind/name --port P` answers it.
//
// Destinations whose decision cannot differ (same namespace, the Servers that
// take the port, the port, default-policy annotations) are judged once, each
// against the clients its authorizations can tell apart; a row class's client
// classes are grouped by answer, so the map grows with the distinct answers of
// each row, bounded by MaxCells.

// DefaultMaxMapCells bounds a map when MaxCells is 0: the answers judged, and
// the cells and client classes they list (access.SetClasses), as Kuma's map
// counts them.
const DefaultMaxMapCells = 200000

// OtherNamespace is the namespace of the "identity of no ServiceAccount of
// the input" column (another namespace, or another cluster sharing the trust
// root).
const OtherNamespace = "meshguard-other"

// OutsideIP is the source address of the "outside the cluster networks"
// column: TEST-NET-3, documentation space no cluster uses.
const OutsideIP = "203.0.113.10"

// MapOptions tune BuildMap.
type MapOptions struct {
	Options
	// MaxCells bounds the answers judged and the cells written, each client
	// class a cell lists counting one (0: DefaultMaxMapCells); rows past it are
	// listed without cells (class -1) and Notes says so.
	MaxCells int
}

// BuildMap is the access map of objs, the set Build previews.
func BuildMap(objs []unstructured.Unstructured, o MapOptions, loc access.Locate) (*access.Map, error) {
	ix := newIndex(objs)
	var routes []unstructured.Unstructured
	for i := range objs {
		if gvk := objs[i].GroupVersionKind(); authzRoute(gvk.Group, gvk.Kind) {
			routes = append(routes, objs[i])
		}
	}
	m := &access.Map{Version: access.MapVersion, Mesh: "linkerd", Destinations: []access.MapDestination{}, Clients: []access.MapClient{}, Cells: []access.MapCell{}}
	dests := mapDestinations(ix, m)
	clients := mapClients(ix, o.Options)
	for _, c := range clients {
		m.Clients = append(m.Clients, c.col)
	}
	limit := o.MaxCells
	if limit <= 0 {
		limit = DefaultMaxMapCells
	}
	// Clients no authorization can tell apart are judged once (preClients);
	// each distinct destination is judged against one client of each such
	// class, and a cell is named by its decision and deciding item.
	pre, reps := preClients(ix, clients, o.Options)
	td := o.TrustDomain
	if td == "" {
		td = DefaultTrustDomain
	}
	sigs := repSignatures(clients, reps, td)
	cellIDs := map[string]int32{}
	byKey := map[string]int{}
	var judged [][]int32
	var ins []*inbound
	var first []int // the destination each judged row was judged for
	destJudged := make([]int, len(dests))
	used := 0
	for i, d := range dests {
		if j, ok := byKey[d.key]; ok {
			destJudged[i] = j
			continue
		}
		in, err := ix.inbound(routes, d.dst, Request{})
		if err != nil {
			return nil, fmt.Errorf("%s: %v", d.dest.ID, err)
		}
		row, n := judgeRow(ix, in, clients, reps, sigs, td, cellIDs, o.Options)
		if used += n; used > limit {
			m.Notes = append(m.Notes, fmt.Sprintf("the bound of %d cells is reached: %s and the destinations after it are listed without cells", limit, d.dest.ID))
			destJudged = destJudged[:i]
			break
		}
		byKey[d.key] = len(judged)
		destJudged[i] = len(judged)
		judged = append(judged, row)
		ins = append(ins, in)
		first = append(first, i)
	}
	// Classes over the representatives; a client's class is its
	// representative's (its column is the same). Each cell is judged again,
	// for the first destination and client of its classes, so no answer of
	// a pair is kept beyond its cell.
	byRep := &access.Map{Destinations: m.Destinations, Clients: make([]access.MapClient, len(reps))}
	cut := access.SetClasses(byRep, destJudged, judged, func(j, k int) access.Answer {
		d, cl := dests[first[j]], clients[reps[k]]
		return ix.decideAt(ins[j], cl.caller, o.Options).Answer(cl.caller, d.dst, d.port, access.Request{}, loc)
	}, limit-used)
	if cut >= 0 {
		m.Notes = append(m.Notes, fmt.Sprintf("the bound of %d cells is reached: the destination classes of %s and of the destinations after it that no earlier one shares are listed without cells (class -1)", limit, m.Destinations[cut].ID))
	}
	m.Cells = byRep.Cells
	for c := range m.Clients {
		m.Clients[c].Class = byRep.Clients[pre[c]].Class
	}
	return m, nil
}

// judgeRow is one destination's row over the representatives: a cell number
// for each (equal numbers, equal decision and deciding item), and how many
// answers it judged. Within the row, clients its authorizations do not name
// are judged once per namespace (namedHere).
func judgeRow(ix *index, in *inbound, clients []mapClient, reps []int, sigs []repSignature, td string, cellIDs map[string]int32, o Options) ([]int32, int) {
	named := in.namedHere(td)
	local := map[int]int32{}
	row := make([]int32, len(reps))
	for k, c := range reps {
		sig := sigs[k].local(k, named)
		id, ok := local[sig]
		if !ok {
			ck := cellKey(ix.decideAt(in, clients[c].caller, o))
			if id, ok = cellIDs[ck]; !ok {
				id = int32(len(cellIDs))
				cellIDs[ck] = id
			}
			local[sig] = id
		}
		row[k] = id
	}
	return row, len(local)
}

// cellKey is what makes two cells the same: the decision, what decides it,
// and the notes the caller's evaluation adds (a row's client classes of one
// key share one cell's answer, so that answer must hold for each).
func cellKey(d Decision) string {
	auth := ""
	if a := d.Decider.Authentication; a != nil {
		auth = fmt.Sprintf("%+v", *a)
	}
	return fmt.Sprintf("%v|%v|%v|%s|%s|%s|%s|%s|%s|%s|%q", d.Allow, d.Audit, d.Default, d.Server, d.Route,
		d.Decider.Kind, d.Decider.Namespace+"/"+d.Decider.Name, d.Decider.Path, d.Decider.Words, auth, d.Notes)
}

// mapDest is a destination with the Destination check would give Decide.
type mapDest struct {
	dest access.MapDestination
	dst  Destination
	port string
	// key is what Decide reads of the destination (its namespace, the
	// Servers selecting its pods, the port's number and names, the workload
	// where its default-policy annotations decide): equal keys, equal answers.
	key string
}

// mapDestinations lists every workload × container port (by number, without
// repeats) and adds them to m; a workload without ports is said in Notes.
func mapDestinations(ix *index, m *access.Map) []mapDest {
	var out []mapDest
	servers := map[string][]*server{}
	for _, s := range ix.servers {
		servers[s.ns] = append(servers[s.ns], s)
	}
	for _, w := range ix.loads {
		var nums []int64
		for _, p := range w.ports {
			if p.number > 0 && !slices.Contains(nums, p.number) {
				nums = append(nums, p.number)
			}
		}
		if len(nums) == 0 {
			m.Notes = append(m.Notes, fmt.Sprintf("%s in namespace %s declares no container port: it is not a row of the map", w.ref, w.ns))
		}
		for _, n := range nums {
			port := strconv.FormatInt(n, 10)
			dst := Destination{Namespace: w.ns, Workload: w.ref, Port: n}
			key := fmt.Sprintf("%s|%s|%d", w.ns, taking(servers[w.ns], w, n), n)
			if w.mode != "" || w.requireIDPorts != "" {
				key += "|" + w.ref // the default policy's answer names the workload
			}
			for _, p := range w.ports {
				if p.number == n {
					key += "|" + p.name
				}
			}
			d := access.MapDestination{ID: w.ns + "/" + w.ref + ":" + port, Peer: access.Peer{Namespace: w.ns, Workload: w.ref, Port: port, Tags: w.labels}}
			out = append(out, mapDest{dest: d, dst: dst, port: port, key: key})
			m.Destinations = append(m.Destinations, d)
		}
	}
	return out
}

// taking names the Servers of ss that take port number n of w (by number, or
// by the name of one of w's ports of that number): Decide reads a pod's
// labels only through them.
func taking(ss []*server, w workload, n int64) string {
	var b strings.Builder
	for _, s := range ss {
		if !s.selects(w.labels) {
			continue
		}
		for _, p := range w.ports {
			if p.number == n && covers(s, w, p) {
				b.WriteString(s.name + ",")
				break
			}
		}
	}
	return b.String()
}

// mapClient is a column with the Caller check would give Decide.
type mapClient struct {
	col    access.MapClient
	caller Caller
}

// mapClients are the ServiceAccounts of the input's workloads, an identity of
// none of them, an unauthenticated client from the cluster networks, one from
// outside them, and one from each network the input's authorizations name.
func mapClients(ix *index, o Options) []mapClient {
	td := o.TrustDomain
	if td == "" {
		td = DefaultTrustDomain
	}
	var out []mapClient
	seen := map[string]bool{}
	sas := func(ns, sa, kind string) {
		if seen[ns+"/"+sa] {
			return
		}
		seen[ns+"/"+sa] = true
		id := saIdentity(ns, sa, td)
		out = append(out, mapClient{col: access.MapClient{ID: ns + "/" + sa, Kind: kind, Peer: access.Peer{Identity: id, Namespace: ns, Name: sa}},
			caller: Caller{Identity: id, TrustDomain: td}})
	}
	for _, w := range ix.loads {
		sas(w.ns, w.sa, access.ClientWorkload)
	}
	for _, sa := range namedServiceAccounts(ix, td) {
		ns, name, _ := strings.Cut(sa, "/")
		sas(ns, name, access.ClientNamed)
	}
	sas(OtherNamespace, "default", access.ClientOtherMesh)
	unauth := func(kind, id, ip string) {
		a, err := netip.ParseAddr(ip)
		if err != nil || seen[ip] {
			return
		}
		seen[ip] = true
		out = append(out, mapClient{col: access.MapClient{ID: id, Kind: kind, Peer: access.Peer{Unauthenticated: true, IP: ip}},
			caller: Caller{Unauthenticated: true, IP: a, TrustDomain: td}})
	}
	cluster := o.ClusterNetworks
	if len(cluster) == 0 {
		cluster = strings.Split(DefaultClusterNetworks, ",")
	}
	if ip := hostIn(cluster[0]); ip != "" {
		unauth(access.ClientUnauthenticated, "unauthenticated@"+ip, ip)
	}
	unauth(access.ClientNetwork, "unauthenticated@"+OutsideIP, OutsideIP)
	for _, cidr := range namedNetworks(ix) {
		if ip := hostIn(cidr); ip != "" {
			unauth(access.ClientNetwork, "unauthenticated@"+ip, ip)
		}
	}
	return out
}

// hostIn is an address inside cidr (its first host), "" when cidr is not one.
func hostIn(cidr string) string {
	p, err := netip.ParsePrefix(strings.TrimSpace(cidr))
	if err != nil {
		return ""
	}
	a := p.Masked().Addr()
	if n := a.Next(); p.Bits() < a.BitLen() && p.Contains(n) {
		a = n
	}
	return a.String()
}

// namedNetworks are the CIDRs the input's NetworkAuthentications and
// ServerAuthorizations name (excepts too), sorted, without repeats.
func namedNetworks(ix *index) []string {
	var out []string
	add := func(ns []api.Network) {
		for _, n := range ns {
			out = append(out, n.Cidr)
			out = append(out, n.Except...)
		}
	}
	for _, spec := range ix.authn.network {
		add(spec.Networks)
	}
	for _, o := range ix.sazs {
		var spec api.ServerAuthorizationSpec
		decodeSpec(o, &spec)
		if spec.Client != nil {
			add(spec.Client.Networks)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// namedServiceAccounts are the ServiceAccounts the input's authorizations name
// (MeshTLSAuthentication identities and identityRefs, ServerAuthorization
// serviceAccounts and identities, AuthorizationPolicy ServiceAccount refs; not
// wildcards), as "ns/name", sorted, without repeats.
func namedServiceAccounts(ix *index, td string) []string {
	var out []string
	exact := func(ids []string) {
		for _, id := range ids {
			if ns, name, ok := identityParts(id, td); ok && !strings.Contains(id, "*") {
				out = append(out, ns+"/"+name)
			}
		}
	}
	refs := func(ns string, rs []api.LinkerdTargetRef) {
		for _, r := range rs {
			if strings.EqualFold(r.Kind, api.KindServiceAccount) && r.Name != "" {
				out = append(out, nsName(r.Namespace, ns, r.Name))
			}
		}
	}
	for key, spec := range ix.authn.meshTLS {
		ns, _, _ := strings.Cut(key, "/")
		exact(spec.Identities)
		refs(ns, spec.IdentityRefs)
	}
	for _, o := range ix.sazs {
		var spec api.ServerAuthorizationSpec
		decodeSpec(o, &spec)
		if c := spec.Client; c != nil && c.MeshTLS != nil {
			exact(c.MeshTLS.Identities)
			for _, sa := range c.MeshTLS.ServiceAccounts {
				out = append(out, nsName(sa.Namespace, o.GetNamespace(), sa.Name))
			}
		}
	}
	for _, o := range ix.policies {
		spec := &api.AuthorizationPolicySpec{}
		decodeSpec(o, spec)
		refs(o.GetNamespace(), spec.RequiredAuthenticationRefs)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
