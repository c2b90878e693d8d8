package linkerdauthz

import (
	"fmt"
	"math/rand"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// identitySuffix is a service account's identity suffix in the default trust domain.
var identitySuffix = Options{}.identitySuffix()

// admits is Linkerd's reading of one grant for a concrete client, written from
// the Client fields (not from the diff's classes): kind, identity (globs are
// "*"-prefixed suffixes), networks with exceptions, route.
type concreteClient struct {
	plain, tls bool   // no TLS; TLS (with or without identity)
	identity   string // "" without identity
	ip         netip.Addr
	route      string
}

func admits(c Client, cl concreteClient) bool {
	if c.Route != "" && c.Route != cl.route {
		return false
	}
	inNets := false
	for _, n := range c.Networks {
		head, ex, _ := strings.Cut(n, " minus ")
		p := netip.MustParsePrefix(head)
		if !p.Contains(cl.ip) {
			continue
		}
		out := false
		for _, e := range strings.Split(ex, ", ") {
			if e != "" && netip.MustParsePrefix(e).Contains(cl.ip) {
				out = true
			}
		}
		inNets = inNets || !out
	}
	if !inNets {
		return false
	}
	meshed := cl.identity != ""
	switch c.Kind {
	case ClientUnauthenticated:
		return true
	case ClientUnauthenticatedTLS:
		return cl.tls || meshed
	case ClientAuthenticated:
		return meshed
	case ClientServiceAccount:
		ns, name, _ := strings.Cut(c.Name, "/")
		return meshed && cl.identity == name+"."+ns+identitySuffix
	case ClientNamespace:
		return meshed && strings.HasSuffix(cl.identity, "."+c.Name+identitySuffix)
	case ClientIdentity:
		if rest, ok := strings.CutPrefix(c.Name, "*"); ok {
			return meshed && strings.HasSuffix(cl.identity, rest)
		}
		return meshed && cl.identity == c.Name
	}
	return false
}

func randomGrants(r *rand.Rand) []Client {
	nets := []string{"0.0.0.0/0", "::/0", "10.0.0.0/8", "10.1.0.0/16", "10.0.0.0/8 minus 10.1.0.0/16, 10.2.3.4/32", "192.168.0.0/16", "fd00::/8"}
	var out []Client
	for n := r.Intn(5); n > 0; n-- {
		c := Client{Via: fmt.Sprintf("AuthorizationPolicy ns/p%d", r.Intn(4))}
		switch r.Intn(7) {
		case 0:
			c.Kind = ClientUnauthenticated
		case 1:
			c.Kind = ClientUnauthenticatedTLS
		case 2:
			c.Kind = ClientAuthenticated
		case 3:
			c.Kind, c.Name = ClientServiceAccount, []string{"a/web", "a/api", "b/web"}[r.Intn(3)]
		case 4:
			c.Kind, c.Name = ClientNamespace, []string{"a", "b"}[r.Intn(2)]
		case 5:
			c.Kind, c.Name = ClientIdentity, []string{"*.a" + identitySuffix, "web.b" + identitySuffix, "*.cluster.local", "spiffe-ish.other"}[r.Intn(4)]
		default:
			c.Kind = ClientNone
		}
		for k := 1 + r.Intn(2); k > 0; k-- {
			c.Networks = append(c.Networks, nets[r.Intn(len(nets))])
		}
		if r.Intn(4) == 0 {
			c.Route = []string{"HTTPRoute ns/r1", "HTTPRoute ns/r2"}[r.Intn(2)]
		}
		out = append(out, c)
	}
	return out
}

func randomConcrete(r *rand.Rand) concreteClient {
	ips := []string{"10.0.0.1", "10.1.2.3", "10.2.3.4", "10.255.0.1", "192.168.1.1", "8.8.8.8", "fd00::1", "2001:db8::1"}
	ids := []string{"web.a" + identitySuffix, "api.a" + identitySuffix, "other.a" + identitySuffix, "web.b" + identitySuffix,
		"x.c" + identitySuffix, "spiffe-ish.other", "foo"}
	cl := concreteClient{ip: netip.MustParseAddr(ips[r.Intn(len(ips))]), route: []string{"", "HTTPRoute ns/r1", "HTTPRoute ns/r2", "HTTPRoute ns/r3"}[r.Intn(4)]}
	switch r.Intn(3) {
	case 0:
		cl.plain = true
	case 1:
		cl.tls = true
	default:
		cl.identity = ids[r.Intn(len(ids))]
	}
	return cl
}

// classOf finds the model classes of a concrete client.
func classOf(m *linkerdModel, cl concreteClient) []int {
	id := -1
	for v, ic := range m.ids {
		switch {
		case ic.plain && cl.plain, ic.tlsOnly && cl.tls && cl.identity == "":
			id = v
		}
	}
	if cl.identity != "" {
		rev := reverse(cl.identity)
		best := -1
		for v := 2; v < len(m.ids); v++ {
			sc := m.ids[v].str
			switch {
			case sc.Kind == "exact" && sc.Value == rev:
				id = v
			case sc.Kind == "prefix" && strings.HasPrefix(rev, sc.Value) && (best < 0 || len(sc.Value) > len(m.ids[best].str.Value)):
				best = v
			case sc.Kind == "other" && best < 0:
				best = v
			}
		}
		if id < 0 {
			id = best
		}
	}
	addr := -1
	for v, a := range m.addrs {
		if a.lo.Compare(cl.ip) <= 0 && cl.ip.Compare(a.hi) <= 0 {
			addr = v
		}
	}
	route := slices.Index(m.routes, cl.route)
	if route < 0 {
		route = len(m.routes)
	}
	return []int{id, addr, route}
}

// TestDiffViewsAgreesWithGrants: for random grant lists and clients, the cell a
// client falls in (exactly one) decides what the grants decide for it.
func TestDiffViewsAgreesWithGrants(t *testing.T) {
	r := rand.New(rand.NewSource(18))
	changed := 0
	for s := 0; s < 1500; s++ {
		op := Preview{Policy: "old", Clients: randomGrants(r)}
		np := Preview{Policy: "new", Clients: randomGrants(r)}
		var og, ng []grantCond
		for _, c := range op.Clients {
			og = append(og, grantOf(c, identitySuffix))
		}
		for _, c := range np.Clients {
			ng = append(ng, grantOf(c, identitySuffix))
		}
		m := newLinkerdModel(og, ng, identitySuffix)
		d := diffViews(op, np, DefaultMaxClasses, identitySuffix)
		if d.Incomplete != "" {
			t.Fatal(d.Incomplete)
		}
		changed += len(d.Changes)
		for k := 0; k < 40; k++ {
			cl := randomConcrete(r)
			cls := classOf(m, cl)
			wantOld, wantNew := false, false
			for _, c := range op.Clients {
				wantOld = wantOld || admits(c, cl)
			}
			for _, c := range np.Clients {
				wantNew = wantNew || admits(c, cl)
			}
			// The reported changes partition the changed clients.
			var hits []Change
			for _, ch := range d.Changes {
				if inCell(ch, cls) {
					hits = append(hits, ch)
				}
			}
			switch {
			case wantOld == wantNew && len(hits) > 0:
				t.Fatalf("set %d: client %+v is decided alike (%v) but falls in changes %+v\nold %+v\nnew %+v", s, cl, wantOld, hits, op.Clients, np.Clients)
			case wantOld != wantNew && (len(hits) != 1 || hits[0].Old.Allow != wantOld || hits[0].New.Allow != wantNew):
				t.Fatalf("set %d: client %+v changes %v -> %v, reported in %+v\nold %+v\nnew %+v", s, cl, wantOld, wantNew, hits, op.Clients, np.Clients)
			}
		}
	}
	if changed < 500 {
		t.Errorf("only %d changes: the generator hardly exercises the diff", changed)
	}
}

// inCell reports whether a client of classes cls is in change ch's cell.
func inCell(ch Change, cls []int) bool {
	for d, c := range ch.choice {
		if c != nil && !slices.Contains(c, cls[d]) {
			return false
		}
	}
	return true
}

// TestDiffRealistic: a Server with a route, an AuthorizationPolicy with a
// MeshTLSAuthentication; the new set adds a namespace to the authentication and
// drops a route-level policy.
func TestDiffRealistic(t *testing.T) {
	base := `apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: api-http, namespace: shop}
spec:
  podSelector: {matchLabels: {app: api}}
  port: http
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: api-admin, namespace: shop}
spec:
  parentRefs: [{group: policy.linkerd.io, kind: Server, name: api-http}]
  rules: [{matches: [{path: {type: PathPrefix, value: /admin}}]}]
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: api-clients, namespace: shop}
spec:
  targetRef: {group: policy.linkerd.io, kind: Server, name: api-http}
  requiredAuthenticationRefs: [{group: policy.linkerd.io, kind: MeshTLSAuthentication, name: frontends}]
---
`
	oldAuthn := `apiVersion: policy.linkerd.io/v1alpha1
kind: MeshTLSAuthentication
metadata: {name: frontends, namespace: shop}
spec:
  identityRefs: [{kind: ServiceAccount, name: web}]
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: admin-ops, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: api-admin}
  requiredAuthenticationRefs: [{kind: ServiceAccount, name: ops}]
`
	newAuthn := `apiVersion: policy.linkerd.io/v1alpha1
kind: MeshTLSAuthentication
metadata: {name: frontends, namespace: shop}
spec:
  identityRefs: [{kind: ServiceAccount, name: web}, {kind: Namespace, name: partners}]
`
	ds := Diff(objects(t, base+oldAuthn), objects(t, base+newAuthn), Options{}, 0)
	var got []string
	for _, d := range ds {
		for _, c := range d.Changes {
			got = append(got, d.Ref()+": "+c.Kind+" "+strings.Join(c.Clients, "; ")+" | "+c.Old.By+" -> "+c.New.By)
		}
	}
	want := []string{
		"shop/api-http: widened service accounts of namespace partners | no grant admits it (authorizations) -> AuthorizationPolicy shop/api-clients (MeshTLSAuthentication shop/frontends)",
		"shop/api-http: narrowed service account shop/ops; a request on HTTPRoute shop/api-admin | AuthorizationPolicy shop/admin-ops (ServiceAccount shop/ops) -> no grant admits it (authorizations)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}

// TestDiffTrustDomain: a ServiceAccount ref and the same service account's
// identity spelled out are the same clients only in the installation's trust
// domain; the diff compares them in the one Options names.
func TestDiffTrustDomain(t *testing.T) {
	base := `apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: api-http, namespace: shop}
spec: {podSelector: {matchLabels: {app: api}}, port: http}
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: api-clients, namespace: shop}
spec:
  targetRef: {group: policy.linkerd.io, kind: Server, name: api-http}
  requiredAuthenticationRefs: [{group: policy.linkerd.io, kind: MeshTLSAuthentication, name: frontends}]
---
`
	byRef := base + `apiVersion: policy.linkerd.io/v1alpha1
kind: MeshTLSAuthentication
metadata: {name: frontends, namespace: shop}
spec: {identityRefs: [{kind: ServiceAccount, name: web}]}
`
	byIdentity := base + `apiVersion: policy.linkerd.io/v1alpha1
kind: MeshTLSAuthentication
metadata: {name: frontends, namespace: shop}
spec: {identities: [web.shop.serviceaccount.identity.linkerd.example.org]}
`
	if ds := Diff(objects(t, byRef), objects(t, byIdentity), Options{TrustDomain: "example.org"}, 0); len(ds) != 0 {
		t.Errorf("in trust domain example.org the two sets admit the same clients; diff says %+v", ds)
	}
	ds := Diff(objects(t, byRef), objects(t, byIdentity), Options{}, 0)
	var got []string
	for _, d := range ds {
		for _, c := range d.Changes {
			got = append(got, c.Kind+" "+strings.Join(c.Clients, "; "))
		}
	}
	want := []string{"widened identity web.shop.serviceaccount.identity.linkerd.example.org", "narrowed service account shop/web"}
	if diff := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("in trust domain cluster.local (-want +got):\n%s", diff)
	}
}
