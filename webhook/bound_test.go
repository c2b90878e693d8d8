package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/meshguard/meshguard/webhook"
	"github.com/meshguard/meshguard/webhook/serving"
	"github.com/meshguard/meshguard/webhook/webhooktest"
)

// TestHugePolicyPreviewIsBounded admits a MeshTrafficPermission of 20,000 `from`
// items (2.3 MB, under the API server's 3 MB request limit). The preview's
// analysis compares items pairwise: unbounded, this request took 23 s, past any
// webhook timeout (the chart's is 5 s), so with failurePolicy Fail the policy could
// never be created. With the webhook's bound the groups are named but not
// compiled, and a warning says so.
func TestHugePolicyPreviewIsBounded(t *testing.T) {
	obj := webhooktest.IncomingPolicy()
	var from []any
	for i := range 20000 {
		from = append(from, map[string]any{
			"targetRef": map[string]any{"kind": "MeshSubset", "tags": map[string]any{"kuma.io/service": fmt.Sprintf("svc-%d_ns_svc_80", i)}},
			"default":   map[string]any{"action": []string{"Allow", "Deny", "AllowWithShadowDeny"}[i%3]},
		})
	}
	obj["spec"].(map[string]any)["from"] = from
	r, err := webhooktest.NewReviewOf(obj)
	if err != nil {
		t.Fatal(err)
	}
	h, err := webhooktest.NewHandlers(webhooktest.StoredPolicies())
	if err != nil {
		t.Fatal(err)
	}
	resp := h.Validate(context.Background(), requests(t, 1, r)[0])
	if !resp.Allowed {
		t.Fatalf("denied: %+v", resp.Result)
	}
	want := fmt.Sprintf("exceed the bound of %d", webhook.DefaultPreviewMaxItems)
	if !strings.Contains(strings.Join(resp.Warnings, "\n"), want) {
		t.Errorf("warnings do not say the preview was bounded:\n%s", strings.Join(resp.Warnings, "\n"))
	}
	if ann := resp.AuditAnnotations["rbac-preview"]; !strings.Contains(ann, `"form":"skipped"`) {
		t.Errorf("rbac-preview annotation is not the skipped groups: %.300s", ann)
	}
}

// TestThreeMegabytePolicyAnsweredInTime sends a MeshTrafficPermission of about
// 3 MB (the API server's request limit) to both handlers as the server serves
// them (body limits, controller-runtime's codec): each answer comes well inside
// the chart's 5 s webhook timeout on a shared 2-core machine.
func TestThreeMegabytePolicyAnsweredInTime(t *testing.T) {
	obj := webhooktest.IncomingPolicy()
	var from []any
	for i := 0; i < 26000; i++ {
		from = append(from, map[string]any{
			"targetRef": map[string]any{"kind": "MeshSubset", "tags": map[string]any{"kuma.io/service": fmt.Sprintf("svc-%d_ns_svc_80", i)}},
			"default":   map[string]any{"action": "Allow"},
		})
	}
	obj["spec"].(map[string]any)["from"] = from
	r, err := webhooktest.NewReviewOf(obj)
	if err != nil {
		t.Fatal(err)
	}
	body := r.Body("00000000-0000-4000-8000-000000000001")
	if len(body) < 2_500_000 || len(body) > serving.MaxRequestBytes {
		t.Fatalf("review of %d bytes, want about 3 MB", len(body))
	}
	h, err := webhooktest.NewHandlers(webhooktest.StoredPolicies())
	if err != nil {
		t.Fatal(err)
	}
	handlers := webhook.Routes(h, serving.NewBodyLimiter(serving.BodyLimits{}))
	for _, path := range []string{webhook.MutatePath, webhook.ValidatePath} {
		start := time.Now()
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		handlers[path].ServeHTTP(rec, req)
		d := time.Since(start)
		var out admissionv1.AdmissionReview
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.Response == nil || !out.Response.Allowed {
			t.Fatalf("%s: %d %.300s", path, rec.Code, rec.Body.String())
		}
		if d > 5*time.Second {
			t.Errorf("%s: a %d-byte review took %v", path, len(body), d)
		}
		t.Logf("%s: %d bytes answered in %v", path, len(body), d)
	}
}
