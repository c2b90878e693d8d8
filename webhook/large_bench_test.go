package webhook_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/meshguard/meshguard/hack/loadgen/loadtest"
	"github.com/meshguard/meshguard/webhook"
)

// BenchmarkValidateLargePolicy sends the 2.9 MB MeshTrafficPermission of issue 27
// (loadtest.LargePolicy) to the validating path as the server serves it (body
// limits, controller-runtime's codec, the handler) and reports the bytes
// allocated per byte of the review (alloc-B/in-B): the request's memory is what
// bounds a replica under large reviews.
func BenchmarkValidateLargePolicy(b *testing.B) {
	r, err := loadtest.NewReviewOf(loadtest.LargePolicy())
	if err != nil {
		b.Fatal(err)
	}
	body := r.Body("00000000-0000-4000-8000-000000000001")
	h, err := loadtest.NewHandlers(loadtest.StoredPolicies())
	if err != nil {
		b.Fatal(err)
	}
	handler := webhook.Routes(h, webhook.NewBodyLimiter(webhook.BodyLimits{}))[webhook.ValidatePath]
	serve := func() {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, webhook.ValidatePath, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		handler.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(`"allowed":true`)) {
			b.Fatalf("%d %.300s", rec.Code, rec.Body.String())
		}
	}
	serve()
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		serve()
	}
}
