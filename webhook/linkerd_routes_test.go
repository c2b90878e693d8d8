package webhook

import (
	"context"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/meshguard/meshguard/validate"
)

// TestGatewayRoutes: the validating handler denies a Gateway API route parented to a
// Linkerd Service that Linkerd would reject, admits the same route parented to another
// gateway without a word, and the mutating handler patches neither.
func TestGatewayRoutes(t *testing.T) {
	route := func(parent string) string {
		return "apiVersion: gateway.networking.k8s.io/v1alpha2\nkind: TCPRoute\nmetadata: {name: r, namespace: web}\nspec:\n" +
			"  parentRefs: [" + parent + "]\n  rules:\n    - backendRefs: [{name: a, port: 80}]\n    - backendRefs: [{name: b, port: 80}]\n"
	}
	e := testEngine()
	ctx := context.Background()
	mesh := serverRequest(t, admissionv1.Create, mustObj(t, route("{group: core, kind: Service, name: web, port: 80}")))
	resp := e.Validate(ctx, mesh)
	if resp.Allowed || resp.Result == nil || !strings.Contains(resp.Result.Message, validate.CodeLinkerdRouteRules) {
		t.Errorf("Linkerd route with two rules: allowed=%v %+v", resp.Allowed, resp.Result)
	}
	other := serverRequest(t, admissionv1.Create, mustObj(t, route("{name: public-gateway}")))
	if resp := e.Validate(ctx, other); !resp.Allowed || len(resp.Warnings) != 0 {
		t.Errorf("route of another gateway: allowed=%v warnings %q", resp.Allowed, resp.Warnings)
	}
	for name, req := range map[string]admission.Request{"mesh": mesh, "other": other} {
		if resp := e.Mutate(ctx, req); len(resp.Patches) != 0 {
			t.Errorf("%s: route patched: %v", name, resp.Patches)
		}
	}
}

// TestRouteLevelPolicyPreview: an AuthorizationPolicy on a stored (cached) Linkerd
// HTTPRoute is previewed on the route's parent Server, as granting on that route only.
func TestRouteLevelPolicyPreview(t *testing.T) {
	stored := []unstructured.Unstructured{*mustObj(t, `apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: web-http, namespace: web}
spec: {podSelector: {matchLabels: {app: web}}, port: 8080}`), *mustObj(t, `apiVersion: policy.linkerd.io/v1beta3
kind: HTTPRoute
metadata: {name: api, namespace: web}
spec: {parentRefs: [{group: policy.linkerd.io, kind: Server, name: web-http}]}`)}
	e := testEngine()
	e.Linkerd.Stored = func(context.Context) []unstructured.Unstructured { return stored }
	ap := mustObj(t, `apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: api-open, namespace: web}
spec:
  targetRef: {group: policy.linkerd.io, kind: HTTPRoute, name: api}
  requiredAuthenticationRefs: []`)
	resp := e.Validate(context.Background(), serverRequest(t, admissionv1.Create, ap))
	joined := strings.Join(resp.Warnings, "\n")
	if !resp.Allowed || !strings.Contains(joined, "Server web/web-http") {
		t.Errorf("allowed=%v, warnings do not preview the route's Server:\n%s", resp.Allowed, joined)
	}
}

// TestGatewayRoutePolicyPreview: the same for a stored Gateway API HTTPRoute (cached
// since Linkerd's AuthorizationPolicy may target one), which a policy.linkerd.io
// HTTPRoute of the same name does not shadow.
func TestGatewayRoutePolicyPreview(t *testing.T) {
	stored := []unstructured.Unstructured{*mustObj(t, `apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: web-http, namespace: web}
spec: {podSelector: {matchLabels: {app: web}}, port: 8080}`), *mustObj(t, `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: api, namespace: web}
spec: {parentRefs: [{group: policy.linkerd.io, kind: Server, name: web-http}]}`)}
	e := testEngine()
	e.Linkerd.Stored = func(context.Context) []unstructured.Unstructured { return stored }
	policy := func(group string) *unstructured.Unstructured {
		return mustObj(t, `apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: api-open, namespace: web}
spec:
  targetRef: {group: `+group+`, kind: HTTPRoute, name: api}
  requiredAuthenticationRefs: []`)
	}
	resp := e.Validate(context.Background(), serverRequest(t, admissionv1.Create, policy("gateway.networking.k8s.io")))
	if joined := strings.Join(resp.Warnings, "\n"); !resp.Allowed || !strings.Contains(joined, "Server web/web-http") {
		t.Errorf("allowed=%v, warnings do not preview the Gateway API route's Server:\n%s", resp.Allowed, joined)
	}
	// A policy on the policy.linkerd.io HTTPRoute "api", which is not stored, grants nothing.
	resp = e.Validate(context.Background(), serverRequest(t, admissionv1.Create, policy("policy.linkerd.io")))
	if joined := strings.Join(resp.Warnings, "\n"); strings.Contains(joined, "Server web/web-http") {
		t.Errorf("a policy on a missing policy.linkerd.io route is previewed on the Gateway API route's Server:\n%s", joined)
	}
}

// TestLinkerdAuthzCachesCoverRouteTargets: the preview caches every kind an
// AuthorizationPolicy may target besides Servers, including Gateway API routes.
func TestLinkerdAuthzCachesCoverRouteTargets(t *testing.T) {
	got := map[string]bool{}
	for _, gvk := range LinkerdAuthzGVKs() {
		got[gvk.String()] = true
	}
	for _, want := range []string{"gateway.networking.k8s.io/v1, Kind=HTTPRoute", "gateway.networking.k8s.io/v1, Kind=GRPCRoute", "policy.linkerd.io/v1beta3, Kind=HTTPRoute"} {
		if !got[want] {
			t.Errorf("no cache of %s (caches: %v)", want, got)
		}
	}
}
