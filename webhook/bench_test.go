package webhook_test

import (
	"context"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/meshguard/meshguard/webhook"
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

// BenchmarkValidateMTPUnique is BenchmarkValidateMTP with a distinct policy in every
// request (loadtest.IncomingVariant, round-robin over more objects than the verdict
// and preview caches keep answers for), so every request is decoded, validated and
// its preview compiled: the cost of a new or changed object.
func BenchmarkValidateMTPUnique(b *testing.B) {
	reviews, err := loadtest.NewReviews(2 * max(webhook.MaxPreviewResults, webhook.MaxVerdicts))
	if err != nil {
		b.Fatal(err)
	}
	reqs := make([]admission.Request, len(reviews))
	for i, r := range reviews {
		ar, err := r.Request("bench")
		if err != nil {
			b.Fatal(err)
		}
		reqs[i] = admission.Request{AdmissionRequest: ar}
	}
	eng := loadtest.NewEngine(loadtest.StoredPolicies())
	ctx := context.Background()
	if resp := eng.Validate(ctx, reqs[0]); !resp.Allowed || resp.AuditAnnotations["rbac-preview"] == "" {
		b.Fatalf("want an allowed response with a preview, got %+v", resp.AdmissionResponse)
	}
	b.ReportAllocs()
	i := 1
	for b.Loop() {
		if resp := eng.Validate(ctx, reqs[i%len(reqs)]); !resp.Allowed {
			b.Fatal("denied")
		}
		i++
	}
}
