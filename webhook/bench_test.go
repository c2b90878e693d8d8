package webhook_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/meshguard/meshguard/webhook/webhooktest"
)

// cycle is how many distinct requests the benchmarks of distinct objects cycle
// through.
const cycle = 4096

// benchValidate measures the validating handler over reqs, round-robin, for the load
// test's MeshTrafficPermission (RBAC preview merged with 20 stored policies),
// without HTTP, TLS or AdmissionReview decoding.
func benchValidate(b *testing.B, reqs []admission.Request) {
	eng, err := webhooktest.NewHandlers(webhooktest.StoredPolicies())
	if err != nil {
		b.Fatal(err)
	}
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

// requests decodes n requests of each review, with distinct uids.
func requests(b testing.TB, n int, reviews ...*webhooktest.Review) []admission.Request {
	var out []admission.Request
	for i := range n {
		for _, r := range reviews {
			ar, err := r.Request(fmt.Sprintf("00000000-0000-4000-8000-%012d", i))
			if err != nil {
				b.Fatal(err)
			}
			out = append(out, admission.Request{AdmissionRequest: ar})
		}
	}
	return out
}

// BenchmarkValidateMTPUnchanged is an UPDATE that changes nothing, sent again and
// again (GitOps reconciles, re-applies): both objects are decoded every time.
func BenchmarkValidateMTPUnchanged(b *testing.B) {
	r, err := webhooktest.NewUnchangedUpdate()
	if err != nil {
		b.Fatal(err)
	}
	benchValidate(b, requests(b, 1, r))
}

// BenchmarkValidateMTPUnique is a CREATE of a distinct policy in every request
// (webhooktest.IncomingVariant), so every request is decoded, validated and its
// preview compiled: the cost of a new or changed object.
func BenchmarkValidateMTPUnique(b *testing.B) {
	reviews, err := webhooktest.NewReviews(cycle)
	if err != nil {
		b.Fatal(err)
	}
	benchValidate(b, requests(b, 1, reviews...))
}

// BenchmarkReview is the whole request path without TLS: one CREATE of the load
// test's policy with a fresh uid, read and answered by controller-runtime's
// admission webhook, for the no-op handler and meshguard's two handlers.
func BenchmarkReview(b *testing.B) {
	r, err := webhooktest.NewReview()
	if err != nil {
		b.Fatal(err)
	}
	bodies := make([][]byte, 1024)
	for i := range bodies {
		bodies[i] = r.Body(fmt.Sprintf("00000000-0000-4000-8000-%012d", i))
	}
	eng, err := webhooktest.NewHandlers(webhooktest.StoredPolicies())
	if err != nil {
		b.Fatal(err)
	}
	for _, h := range []struct {
		name string
		fn   admission.HandlerFunc
	}{{"noop", webhooktest.Noop}, {"validate", eng.Validate}, {"mutate", eng.Mutate}} {
		serve := webhooktest.ControllerRuntime(h.fn)
		b.Run(h.name, func(b *testing.B) { serveBodies(b, serve, bodies) })
	}
}

// serveBodies posts the review bodies to serve round-robin, as the API server's
// requests reach controller-runtime's admission webhook, and fails when nothing was
// answered.
func serveBodies(b *testing.B, serve http.Handler, bodies [][]byte) {
	b.ReportAllocs()
	w := &discardWriter{h: http.Header{}}
	i := 0
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, "/validate", bytes.NewReader(bodies[i%len(bodies)]))
		req.Header.Set("Content-Type", "application/json")
		serve.ServeHTTP(w, req)
		i++
	}
	if w.n == 0 {
		b.Fatal("no answer written")
	}
}

// discardWriter is an http.ResponseWriter that keeps only the answer's length.
type discardWriter struct {
	h http.Header
	n int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) { w.n = len(p); return len(p), nil }
func (w *discardWriter) WriteHeader(int)             {}
