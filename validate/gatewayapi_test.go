package validate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
)

// TestGatewayAPIVersions: under --gateway-api-version each bundle's route CRDs judge
// the routes parented to Linkerd as a cluster serving that bundle does: what a
// bundle does not serve is MG005, what its schema refuses MG002 (and a filter's
// field it does not declare MG001), a version it deprecates MG340. Every bundle has an object whose verdict differs from another
// bundle's. The Linkerd release is edge-26.8.3, whose Gateway API types read every
// filter of every bundle, so the verdicts are the CRDs'.
func TestGatewayAPIVersions(t *testing.T) {
	const meta = "metadata: {name: web, namespace: shop}\n"
	const parent = "  parentRefs: [{group: core, kind: Service, name: web, port: 443}]\n"
	docs := map[string]string{
		"GRPCRoute v1alpha2": "apiVersion: gateway.networking.k8s.io/v1alpha2\nkind: GRPCRoute\n" + meta + "spec:\n" + parent +
			"  rules: [{backendRefs: [{name: web, port: 8080}]}]\n",
		"HTTPRoute CORS filter": "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n" + meta + "spec:\n" + parent +
			"  rules: [{filters: [{type: CORS, cors: {allowOrigins: [\"https://shop.example\"]}}], backendRefs: [{name: web, port: 8080}]}]\n",
		"HTTPRoute ExternalAuth filter": "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n" + meta + "spec:\n" + parent +
			"  rules: [{filters: [{type: ExternalAuth, externalAuth: {protocol: HTTP, backendRef: {name: auth, port: 80}, http: {}}}], backendRefs: [{name: web, port: 8080}]}]\n",
		"TLSRoute v1alpha3": "apiVersion: gateway.networking.k8s.io/v1alpha3\nkind: TLSRoute\n" + meta + "spec:\n" + parent +
			"  hostnames: [shop.example]\n  rules: [{backendRefs: [{name: web, port: 8443}]}]\n",
		"TLSRoute v1": "apiVersion: gateway.networking.k8s.io/v1\nkind: TLSRoute\n" + meta + "spec:\n" + parent +
			"  hostnames: [shop.example]\n  rules: [{backendRefs: [{name: web, port: 8443}]}]\n",
		"TLSRoute v1alpha2": "apiVersion: gateway.networking.k8s.io/v1alpha2\nkind: TLSRoute\n" + meta + "spec:\n" + parent +
			"  rules: [{backendRefs: [{name: web, port: 8443}]}]\n",
	}
	want := map[string]map[string]string{ // bundle → object → codes ("" when clean)
		"v1.1.1": {"GRPCRoute v1alpha2": "MG340", "HTTPRoute CORS filter": "MG001,MG002", "HTTPRoute ExternalAuth filter": "MG001,MG002", "TLSRoute v1alpha3": "MG005", "TLSRoute v1": "MG005"},
		"v1.2.1": {"GRPCRoute v1alpha2": "MG005", "HTTPRoute CORS filter": "MG001,MG002", "HTTPRoute ExternalAuth filter": "MG001,MG002", "TLSRoute v1alpha3": "MG005", "TLSRoute v1": "MG005"},
		"v1.3.0": {"GRPCRoute v1alpha2": "MG005", "HTTPRoute ExternalAuth filter": "MG001,MG002", "TLSRoute v1alpha3": "MG005", "TLSRoute v1": "MG005"},
		"v1.4.1": {"GRPCRoute v1alpha2": "MG005", "TLSRoute v1": "MG005"},
		"v1.5.1": {"GRPCRoute v1alpha2": "MG005", "TLSRoute v1alpha3": "MG340", "TLSRoute v1alpha2": "MG340"},
	}
	for gv, objs := range want {
		s := linkerdSettings(t, api.LinkerdEdge, gv)
		for name, doc := range docs {
			res := lintOne(t, doc, s, api.Request{})
			var codes []string
			for _, g := range reduce(res) {
				codes = append(codes, g.Code)
			}
			if d := cmp.Diff(objs[name], strings.Join(codes, ",")); d != "" {
				t.Errorf("Gateway API %s, %s (-want +got):\n%s\nerrors: %v warnings: %v", gv, name, d, res.Errors, res.Warnings)
			}
		}
	}
}
