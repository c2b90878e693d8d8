package webhook

import (
	"context"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/schema"
)

// TestUnknownFieldStaysAWarning: where the file doors refuse an unknown field (as
// kubectl apply's strict field validation does), the webhook answers as the API
// server does once it has pruned the field: admitted, with the MG001 warning.
func TestUnknownFieldStaysAWarning(t *testing.T) {
	h := testEngine()
	if err := schema.LoadInto(&h.Settings); err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{}
	doc := "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: t, namespace: kuma-system}\nspec:\n  targetRef: {kind: Mesh}\n  to:\n    - targetRef: {kind: Mesh}\n      default: {connectionTimeout: 5s, idleTimeot: 1h}\n"
	if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
		t.Fatal(err)
	}
	resp := h.Validate(context.Background(), admissionRequest(t, "u", admissionv1.Create, obj, nil, "alice"))
	if !resp.Allowed {
		t.Fatalf("refused: %+v", resp.Result)
	}
	want := `MG001 spec.to[0].default.idleTimeot: unknown field "idleTimeot": the API server drops it; did you mean "idleTimeout"?`
	found := false
	for _, w := range resp.Warnings {
		found = found || strings.Contains(w, want)
	}
	if !found {
		t.Errorf("warnings %q lack %q", resp.Warnings, want)
	}
}
