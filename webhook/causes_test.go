package webhook

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestDenialCausesAreCapped validates policies with 1, 100, 101 and 8,000 errors
// (a `from` item with an unknown action each): the answer lists the first
// MaxCauses causes, plus one that counts the rest, and is built in time linear in
// the findings (8,000 well under a second, where a quadratic step would not be).
func TestDenialCausesAreCapped(t *testing.T) {
	e := testEngine()
	for _, n := range []int{1, MaxCauses, MaxCauses + 1, 8000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			from := make([]any, n)
			for i := range from {
				from[i] = map[string]any{"targetRef": map[string]any{"kind": "Mesh"}, "default": map[string]any{"action": fmt.Sprintf("Bogus%d", i)}}
			}
			obj := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTrafficPermission",
				"metadata": map[string]any{"name": "many", "namespace": "kuma-system", "labels": map[string]any{"kuma.io/mesh": "default"}},
				"spec":     map[string]any{"targetRef": map[string]any{"kind": "Mesh"}, "from": from},
			}}
			start := time.Now()
			resp := e.Validate(context.Background(), admissionRequest(t, "u", admissionv1.Create, obj, nil, "alice"))
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("%d errors took %v", n, d)
			}
			if resp.Allowed || resp.Result == nil || resp.Result.Details == nil {
				t.Fatalf("want a denial with causes, got %+v", resp.AdmissionResponse)
			}
			causes := resp.Result.Details.Causes
			wantCauses := min(n, MaxCauses)
			if n > MaxCauses {
				wantCauses++
			}
			if len(causes) != wantCauses {
				t.Fatalf("%d causes for %d errors, want %d", len(causes), n, wantCauses)
			}
			if n > MaxCauses {
				last := causes[len(causes)-1].Message
				if want := fmt.Sprintf("and %d more errors", n-MaxCauses); !strings.Contains(last, want) {
					t.Errorf("last cause %q does not say %q", last, want)
				}
			} else if !strings.Contains(causes[len(causes)-1].Message, "[MG") {
				t.Errorf("last cause %q is not a coded finding", causes[len(causes)-1].Message)
			}
			if len(resp.Result.Message) > 64<<10 {
				t.Errorf("message of %d bytes", len(resp.Result.Message))
			}
		})
	}
}
