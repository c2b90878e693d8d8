package webhook

import (
	"context"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
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
