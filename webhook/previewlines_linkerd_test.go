package webhook

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/linkerdauthz"
)

func linkerdObject(version, kind, ns, name string, spec map[string]any) unstructured.Unstructured {
	return unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "policy.linkerd.io/" + version, "kind": kind,
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     spec,
	}}
}

// networks draws n CIDRs, some with exceptions.
func (g *gen) networks(names nameSet, n int) []any {
	var out []any
	for range n {
		g.n++
		cidr := fmt.Sprintf("10.%d.%d.0/24", g.n%250, g.r.Intn(250))
		names.add(cidr)
		nw := map[string]any{"cidr": cidr}
		if g.r.Intn(3) == 0 {
			ex := fmt.Sprintf("10.%d.%d.128/25", g.n%250, g.r.Intn(250))
			names.add(ex)
			nw["except"] = []any{ex}
		}
		out = append(out, nw)
	}
	return out
}

// client draws a ServerAuthorization's client: identities, service accounts or
// unauthenticated clients from networks.
func (g *gen) client(names nameSet, ns string) map[string]any {
	switch g.r.Intn(3) {
	case 0:
		var ids []any
		for range g.pick(1, 3, 10) {
			id := "*." + g.name("ns", g.pick(8, 63)) + ".serviceaccount.identity.linkerd." + g.name("cluster", g.pick(10, 60)) + ".local"
			names.add(id)
			ids = append(ids, id)
		}
		return map[string]any{"meshTLS": map[string]any{"identities": ids}}
	case 1:
		var sas []any
		for range g.pick(1, 4) {
			sa := g.name("sa", g.pick(8, 63, 253))
			names.add(ns+"/"+sa, sa)
			sas = append(sas, map[string]any{"name": sa, "namespace": ns})
		}
		return map[string]any{"meshTLS": map[string]any{"serviceAccounts": sas}}
	}
	return map[string]any{"unauthenticated": true, "networks": g.networks(names, g.pick(1, 4, 20))}
}

// linkerdShape draws a Server with long names and many labels, authorizations of
// every client kind, an AuthorizationPolicy with (possibly missing)
// authentications, and one of them as the incoming object.
func (g *gen) linkerdShape(i int) shape {
	names := nameSet{}
	ns := g.name("ns", g.pick(8, 40, 63))
	srv := g.name("srv", g.pick(8, 63, 253))
	names.add(ns, srv, ns+"/"+srv)
	// A ServerAuthorization without networks admits from the cluster networks.
	names.add(strings.Split(linkerdauthz.DefaultClusterNetworks, ",")...)
	labels := map[string]any{}
	for range g.pick(1, 3, 6) {
		k, v := g.name("app", g.pick(3, 30)), g.name("v", g.pick(8, 63))
		labels[k] = v
		names.add(k+"="+v, v)
	}
	objs := []unstructured.Unstructured{linkerdObject("v1beta3", "Server", ns, srv, map[string]any{
		"podSelector": map[string]any{"matchLabels": labels}, "port": int64(8080), "proxyProtocol": "HTTP/1"})}
	for range g.pick(1, 2, 5) {
		name := g.name("authz", g.pick(8, 63, 253))
		names.add(ns+"/"+name, name)
		objs = append(objs, linkerdObject("v1beta1", "ServerAuthorization", ns, name, map[string]any{
			"server": map[string]any{"name": srv}, "client": g.client(names, ns)}))
	}
	mtls, netw := g.name("mtls", g.pick(8, 63, 253)), g.name("net", g.pick(8, 63, 253))
	names.add(ns+"/"+mtls, mtls, ns+"/"+netw, netw)
	var ids []any
	for range g.pick(1, 5) {
		id := g.name("web", g.pick(8, 63)) + "." + ns + ".serviceaccount.identity.linkerd.cluster.local"
		names.add(id)
		ids = append(ids, id)
	}
	if g.r.Intn(4) > 0 { // else the policy names a missing authentication
		objs = append(objs, linkerdObject("v1alpha1", "MeshTLSAuthentication", ns, mtls, map[string]any{"identities": ids}))
	}
	objs = append(objs, linkerdObject("v1alpha1", "NetworkAuthentication", ns, netw, map[string]any{"networks": g.networks(names, g.pick(1, 3, 12))}))
	ap := g.name("policy", g.pick(8, 63, 253))
	names.add(ns+"/"+ap, ap)
	objs = append(objs, linkerdObject("v1alpha1", "AuthorizationPolicy", ns, ap, map[string]any{
		"targetRef": map[string]any{"group": "policy.linkerd.io", "kind": "Server", "name": srv},
		"requiredAuthenticationRefs": []any{
			map[string]any{"group": "policy.linkerd.io", "kind": "MeshTLSAuthentication", "name": mtls},
			map[string]any{"group": "policy.linkerd.io", "kind": "NetworkAuthentication", "name": netw},
		}}))
	k := g.r.Intn(len(objs))
	in := objs[k].DeepCopy()
	stored := append(objs[:k:k], objs[k+1:]...)
	return shape{desc: fmt.Sprintf("linkerd %d (%s)", i, in.GetKind()), stored: stored, incoming: in, names: names}
}

// TestLinkerdPreviewLinesKeepNames is TestPreviewLinesKeepNames for the Linkerd
// authorization preview.
func TestLinkerdPreviewLinesKeepNames(t *testing.T) {
	g := &gen{r: rand.New(rand.NewSource(14))}
	admitted, previewed := 0, 0
	const shapes = 300
	for i := range shapes {
		s := g.linkerdShape(i)
		eng := testEngine()
		eng.Linkerd.Stored = func(context.Context) []unstructured.Unstructured { return s.stored }
		lines := eng.linkerdPreview(context.Background(), s.incoming)
		if len(lines) > 4 {
			t.Errorf("%s: %d preview lines", s.desc, len(lines))
		}
		if len(lines) > 0 {
			previewed++
		}
		resp := eng.Validate(context.Background(), admissionRequest(t, "u", admissionv1.Create, s.incoming, nil, "alice"))
		var sent []string
		if resp.Allowed {
			admitted++
			sent = resp.Warnings
		}
		checkPreviewLines(t, s.desc, lines, sent, s.names)
	}
	if admitted < shapes/2 || previewed < shapes/2 {
		t.Errorf("%d of %d shapes admitted, %d previewed: the preview is barely tested", admitted, shapes, previewed)
	}
}
