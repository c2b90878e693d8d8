package webhook_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/hack/loadgen/loadtest"
	"github.com/meshguard/meshguard/webhook"
)

// TestHugePolicyPreviewIsBounded admits a MeshTrafficPermission of 20,000 `from`
// items (2.3 MB, under the API server's 3 MB request limit). The preview's
// analysis compares items pairwise: unbounded, this request took 23 s, past any
// webhook timeout (the chart's is 5 s), so with failurePolicy Fail the policy could
// never be created. With the webhook's bound the groups are named but not
// compiled, and a warning says so.
func TestHugePolicyPreviewIsBounded(t *testing.T) {
	obj := loadtest.IncomingPolicy()
	var from []any
	for i := range 20000 {
		from = append(from, map[string]any{
			"targetRef": map[string]any{"kind": "MeshSubset", "tags": map[string]any{"kuma.io/service": fmt.Sprintf("svc-%d_ns_svc_80", i)}},
			"default":   map[string]any{"action": []string{"Allow", "Deny", "AllowWithShadowDeny"}[i%3]},
		})
	}
	obj["spec"].(map[string]any)["from"] = from
	r, err := loadtest.NewReviewOf(obj)
	if err != nil {
		t.Fatal(err)
	}
	resp := loadtest.NewEngine(loadtest.StoredPolicies()).Validate(context.Background(), requests(t, 1, r)[0])
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
