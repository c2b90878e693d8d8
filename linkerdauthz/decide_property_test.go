package linkerdauthz

import (
	"fmt"
	"math/rand"
	"net/netip"
	"strings"
	"testing"
)

// randomLinkerdSet draws one Server and up to four authorizations of it
// (ServerAuthorizations, AuthorizationPolicies on the Server or its namespace
// with one identity authentication and maybe a network one), over a few
// identities and networks that overlap.
func randomLinkerdSet(r *rand.Rand) string {
	pick := func(l ...string) string { return l[r.Intn(len(l))] }
	nets := func() string {
		switch r.Intn(4) {
		case 0:
			return ""
		case 1:
			return "networks: [{cidr: 10.0.0.0/8}]"
		case 2:
			return "networks: [{cidr: 10.0.0.0/8, except: [10.1.0.0/16]}]"
		}
		return "networks: [{cidr: 192.168.0.0/16}, {cidr: 10.1.0.0/16}]"
	}
	version := pick("v1beta1", "v1beta3")
	docs := []string{fmt.Sprintf("apiVersion: policy.linkerd.io/%s\nkind: Server\nmetadata: {name: s1, namespace: ns}\nspec: {podSelector: {matchLabels: {app: web}}, port: 8080}", version)}
	for i, n := 0, r.Intn(5); i < n; i++ {
		if r.Intn(2) == 0 {
			var client string
			switch r.Intn(3) {
			case 0:
				client = "unauthenticated: true"
			case 1:
				client = fmt.Sprintf("meshTLS: {identities: [%q]}", pick("*", "*.ns.serviceaccount.identity.linkerd.cluster.local", "a.ns.serviceaccount.identity.linkerd.cluster.local", "b.other.serviceaccount.identity.linkerd.cluster.local"))
			default:
				client = fmt.Sprintf("meshTLS: {serviceAccounts: [{name: %s%s}]}", pick("a", "b"), pick("", ", namespace: other"))
			}
			if n := nets(); n != "" {
				client += ", " + n
			}
			docs = append(docs, fmt.Sprintf("apiVersion: policy.linkerd.io/v1beta1\nkind: ServerAuthorization\nmetadata: {name: saz%d, namespace: ns}\nspec:\n  server: {name: s1}\n  client: {%s}", i, client))
			continue
		}
		target := pick("{group: policy.linkerd.io, kind: Server, name: s1}", "{kind: Namespace, name: ns}")
		var refs []string
		switch r.Intn(3) {
		case 0:
			docs = append(docs, fmt.Sprintf("apiVersion: policy.linkerd.io/v1alpha1\nkind: MeshTLSAuthentication\nmetadata: {name: m%d, namespace: ns}\nspec: {%s}", i,
				pick(`identities: ["*"]`, `identities: ["*.other.serviceaccount.identity.linkerd.cluster.local"]`, `identityRefs: [{kind: ServiceAccount, name: a}]`, `identityRefs: [{kind: Namespace, name: other}]`)))
			refs = append(refs, fmt.Sprintf("{group: policy.linkerd.io, kind: MeshTLSAuthentication, name: m%d}", i))
		case 1:
			refs = append(refs, fmt.Sprintf("{kind: ServiceAccount, name: %s}", pick("a", "b")))
		}
		if r.Intn(2) == 0 {
			docs = append(docs, fmt.Sprintf("apiVersion: policy.linkerd.io/v1alpha1\nkind: NetworkAuthentication\nmetadata: {name: n%d, namespace: ns}\nspec: {%s}", i,
				pick("networks: [{cidr: 10.0.0.0/8}]", "networks: [{cidr: 0.0.0.0/0, except: [10.1.2.3/32]}]")))
			refs = append(refs, fmt.Sprintf("{group: policy.linkerd.io, kind: NetworkAuthentication, name: n%d}", i))
		}
		docs = append(docs, fmt.Sprintf("apiVersion: policy.linkerd.io/v1alpha1\nkind: AuthorizationPolicy\nmetadata: {name: ap%d, namespace: ns}\nspec:\n  targetRef: %s\n  requiredAuthenticationRefs: [%s]", i, target, strings.Join(refs, ", ")))
	}
	return strings.Join(docs, "\n---\n")
}

// previewAdmits is the test's independent reading: the Server's preview (Build,
// whose client list is computed by other code) admits the caller when one of its
// clients matches it by kind, name and networks.
func previewAdmits(t *testing.T, p Preview, c Caller) bool {
	t.Helper()
	ns, _, _ := identityParts(c.Identity, DefaultTrustDomain)
	for _, cl := range p.Clients {
		if cl.Route != "" {
			continue
		}
		who := false
		switch cl.Kind {
		case ClientUnauthenticated:
			who = true
		case ClientAuthenticated:
			who = c.Identity != ""
		case ClientIdentity:
			who = identityMatches(cl.Name, c.Identity)
		case ClientServiceAccount:
			sns, sname, _ := strings.Cut(cl.Name, "/")
			who = c.Identity == saIdentity(sns, sname, DefaultTrustDomain)
		case ClientNamespace:
			who = c.Identity != "" && ns == cl.Name
		}
		if who && inWords(t, cl.Networks, c.IP) {
			return true
		}
	}
	return false
}

// inWords reads the preview's network words ("cidr" or "cidr minus a, b").
func inWords(t *testing.T, words []string, ip netip.Addr) bool {
	t.Helper()
	for _, w := range words {
		cidr, except, _ := strings.Cut(w, " minus ")
		p, err := netip.ParsePrefix(cidr)
		if err != nil {
			t.Fatalf("network words %q: %v", w, err)
		}
		if !p.Contains(ip) {
			continue
		}
		out := false
		if except != "" {
			for _, e := range strings.Split(except, ", ") {
				ep, err := netip.ParsePrefix(e)
				if err != nil {
					t.Fatalf("except %q: %v", e, err)
				}
				out = out || ep.Contains(ip)
			}
		}
		if !out {
			return true
		}
	}
	return false
}

// TestDecideAgreesWithPreview: on random Servers and authorizations, and random
// callers (service accounts of two namespaces, unauthenticated, from addresses
// inside and outside the networks), Decide admits exactly the callers the
// authorization preview's client list admits.
func TestDecideAgreesWithPreview(t *testing.T) {
	r := rand.New(rand.NewSource(18))
	dst := Destination{Namespace: "ns", Labels: map[string]string{"app": "web"}, Port: 8080}
	ips := []string{"10.0.0.7", "10.1.2.3", "192.168.4.4", "172.16.0.1"}
	allowed := 0
	for s := 0; s < 400; s++ {
		set := randomLinkerdSet(r)
		objs := objects(t, set)
		pv := find(t, Build(objs, Options{}), "ns/s1")
		for c := 0; c < 20; c++ {
			from := []string{"", "ns/a", "ns/b", "other/a", "other/b"}[r.Intn(5)]
			caller, err := ParseCaller(from, ips[r.Intn(len(ips))], "")
			if err != nil {
				t.Fatal(err)
			}
			d, err := Decide(objs, caller, dst, Request{}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if want := previewAdmits(t, pv, caller); d.Allow != want {
				t.Fatalf("set %d, %q from %s: Decide %v (%s), the preview's clients %v\n%s\nclients: %v", s, from, caller.IP, d.Allow, d.Decider.Words, want, set, words(pv))
			}
			if d.Allow {
				allowed++
			}
		}
	}
	if allowed < 500 {
		t.Errorf("only %d allowed calls: the sets admit too little to test", allowed)
	}
}
