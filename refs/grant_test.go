package refs

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
)

// TestReferenceGrants: under Kuma 3.0 (--kuma-version 3.0-preview) a Gateway API
// HTTPRoute that Kuma converts (a Service or MeshService parent) names a Service
// or MeshService of another namespace only with a ReferenceGrant there that
// permits HTTPRoutes of the route's namespace (kumahq/kuma #18075): backendRefs
// and requestMirror backends alike. It is judged where the inventory shows the
// backend's namespace, and never under 2.14, for routes Kuma does not convert, or
// for backends in the route's own namespace.
func TestReferenceGrants(t *testing.T) {
	const (
		svc     = "apiVersion: v1\nkind: Service\nmetadata: {name: payments, namespace: billing}\nspec: {ports: [{port: 8080}]}"
		ms      = "apiVersion: kuma.io/v1alpha1\nkind: MeshService\nmetadata: {name: ledger, namespace: billing}\nspec: {ports: [{port: 8080}]}"
		grantSv = "apiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: g, namespace: billing}\nspec:\n  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: shop}]\n  to: [{group: '', kind: Service, name: payments}]"
		grantMS = "apiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: h, namespace: billing}\nspec:\n  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: shop}]\n  to: [{group: kuma.io, kind: MeshService}]"
		grantGw = "apiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: g, namespace: billing}\nspec:\n  from: [{group: gateway.networking.k8s.io, kind: Gateway, namespace: shop}]\n  to: [{group: '', kind: Service}]"
		grantNm = "apiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: g, namespace: billing}\nspec:\n  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: shop}]\n  to: [{group: '', kind: Service, name: other}]"
	)
	route := func(parent string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: shop}\nspec:\n  parentRefs: [" + parent + "]\n  rules:\n" +
			"    - backendRefs: [{name: payments, namespace: billing, port: 8080}, {name: web, port: 8080}, {group: kuma.io, kind: MeshService, name: ledger, namespace: billing, port: 8080}]\n" +
			"      filters: [{type: RequestMirror, requestMirror: {backendRef: {name: payments, namespace: billing, port: 8080}}}]"
	}
	svcParent := route("{group: '', kind: Service, name: web, port: 8080}")
	all := []string{"MG406 spec.rules[0].backendRefs[0]", "MG406 spec.rules[0].backendRefs[2]", "MG406 spec.rules[0].filters[0].requestMirror.backendRef"}
	for _, c := range []struct {
		name, version, inventory, subject string
		strict                            bool
		want                              []string
	}{
		{"no grant, the namespace in view", "3.0-preview", svc, svcParent, false, all},
		{"MeshService parent", "3.0-preview", svc, route("{group: kuma.io, kind: MeshService, name: web}"), false, all},
		{"a grant for the Service", "3.0-preview", svc + "\n---\n" + grantSv, svcParent, false, all[1:2]},
		{"grants for both", "3.0-preview", grantSv + "\n---\n" + grantMS, svcParent, false, nil},
		{"a grant for Gateways only", "3.0-preview", grantGw, svcParent, false, all},
		{"a grant for another name", "3.0-preview", grantNm, svcParent, false, all},
		{"the namespace not in view", "3.0-preview", "", svcParent, false, nil},
		{"the namespace not in view, strict", "3.0-preview", "", svcParent, true, all},
		{"MeshService in view", "3.0-preview", ms, svcParent, false, all},
		{"Kuma 2.14 needs no grant", "2.14", svc, svcParent, true, nil},
		{"grants not listed (audit): a Service alone says nothing", "3.0-preview-unlisted", svc, svcParent, false, nil},
		{"grants not listed (audit): another grant of the namespace does", "3.0-preview-unlisted", grantGw, svcParent, false, all},
		{"a route Kuma does not convert (Gateway parent)", "3.0-preview", svc, route("{name: edge}"), true, nil},
		{"group core is no Service to Kuma", "3.0-preview", svc, route("{group: core, kind: Service, name: web}"), true, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			inv := NewInventory()
			if c.inventory != "" {
				for _, d := range strings.Split(c.inventory, "\n---\n") {
					inv.AddObject(obj(t, d))
				}
			}
			s := api.DefaultSettings()
			version, unlisted := strings.CutSuffix(c.version, "-unlisted")
			s.KumaVersion = version
			opts := OptionsFrom(s)
			opts.Strict, opts.GrantsUnlisted = c.strict, unlisted
			var got []string
			for _, p := range (Resolver{Inv: inv, Opts: opts}).Check(Extract(obj(t, c.subject), opts)) {
				if p.Code != CodeKumaGrant {
					continue // the parent and backend checks of routes are other tests'
				}
				got = append(got, p.Code+" "+p.Path)
				if !strings.Contains(p.Message, "Write, in namespace billing: ReferenceGrant") {
					t.Errorf("%s: the message must say which ReferenceGrant to write: %s", p.Path, p.Message)
				}
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestReferenceGrantReplaced: a ReferenceGrant written again replaces the one
// before, as in a cluster, so a grant narrowed later no longer permits.
func TestReferenceGrantReplaced(t *testing.T) {
	inv := NewInventory()
	for _, d := range []string{
		"apiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: g, namespace: billing}\nspec:\n  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: shop}]\n  to: [{group: '', kind: Service}]",
		"apiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: g, namespace: billing}\nspec:\n  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: other}]\n  to: [{group: '', kind: Service}]",
	} {
		inv.AddObject(obj(t, d))
	}
	if n := len(inv.grants["billing"]); n != 1 {
		t.Fatalf("%d grants in billing, want 1", n)
	}
	if inv.grants["billing"][0].Grant.permits("shop", ClassService, "payments") {
		t.Error("the replaced grant still permits routes of shop")
	}
}
