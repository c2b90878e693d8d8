package webhook

import (
	"context"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestLinkerdAuthorizationPreview admits a ServerAuthorization and expects the
// warnings to say who may now reach the stored Server it selects.
func TestLinkerdAuthorizationPreview(t *testing.T) {
	server := mustObj(t, `apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: web-http, namespace: web}
spec:
  podSelector: {matchLabels: {app: web}}
  port: 8080
  proxyProtocol: HTTP/1`)
	eng := testEngine()
	eng.Linkerd.Stored = func(context.Context) []unstructured.Unstructured { return []unstructured.Unstructured{*server} }
	client, base := tlsServer(t, eng)
	saz := mustObj(t, `apiVersion: policy.linkerd.io/v1beta1
kind: ServerAuthorization
metadata: {name: web-from-frontend, namespace: web}
spec:
  server: {name: web-http}
  client:
    meshTLS:
      serviceAccounts: [{name: frontend, namespace: frontend}]`)
	resp, _ := post(t, client, base+ValidatePath, review(t, admissionv1.Create, saz, nil, "alice"))
	if !resp.Allowed {
		t.Fatalf("denied: %+v", resp.Result)
	}
	joined := strings.Join(resp.Warnings, "\n")
	if !strings.Contains(joined, "web-http") || !strings.Contains(joined, "frontend") {
		t.Errorf("warnings do not preview the Server's clients:\n%s", joined)
	}
	for _, w := range resp.Warnings {
		if len(w) > MaxWarningLen {
			t.Errorf("warning too long: %q", w)
		}
	}
}
