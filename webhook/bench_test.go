package webhook_test

import (
	"context"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/meshguard/meshguard/webhook/loadtest"
)

// BenchmarkValidateMTP is the engine's own cost per validating request for the
// load test's MeshTrafficPermission CREATE (RBAC preview merged with 20 stored
// policies), without HTTP, TLS or AdmissionReview decoding.
func BenchmarkValidateMTP(b *testing.B) {
	review, err := loadtest.NewReview()
	if err != nil {
		b.Fatal(err)
	}
	ar, err := review.Request("bench")
	if err != nil {
		b.Fatal(err)
	}
	req := admission.Request{AdmissionRequest: ar}
	eng := loadtest.NewEngine(loadtest.StoredPolicies())
	ctx := context.Background()
	if resp := eng.Validate(ctx, req); !resp.Allowed || resp.AuditAnnotations["rbac-preview"] == "" {
		b.Fatalf("want an allowed response with a preview, got %+v", resp.AdmissionResponse)
	}
	b.ReportAllocs()
	for b.Loop() {
		if resp := eng.Validate(ctx, req); !resp.Allowed {
			b.Fatal("denied")
		}
	}
}
