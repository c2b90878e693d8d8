package webhook_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/meshguard/meshguard/webhook"
	"github.com/meshguard/meshguard/webhook/serving"
	"github.com/meshguard/meshguard/webhook/webhooktest"
)

// BenchmarkValidateLargePolicy sends the 2.9 MB MeshTrafficPermission of issue 27
// (webhooktest.LargePolicy) to the validating path as the server serves it (body
// limits, controller-runtime's codec, the handler), with the schema layer run
// ("schema", as lint and --schema-check always) and skipped ("schema-skipped", as
// --schema-check auto where the installed CRD is the embedded one), and reports
// the bytes allocated per byte of the review (alloc-B/in-B).
func BenchmarkValidateLargePolicy(b *testing.B) {
	r, err := webhooktest.NewReviewOf(webhooktest.LargePolicy())
	if err != nil {
		b.Fatal(err)
	}
	body := r.Body("00000000-0000-4000-8000-000000000001")
	h, err := webhooktest.NewHandlers(webhooktest.StoredPolicies())
	if err != nil {
		b.Fatal(err)
	}
	handler := webhook.Routes(h, serving.NewBodyLimiter(serving.BodyLimits{}))[webhook.ValidatePath]
	serve := func(b *testing.B) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, webhook.ValidatePath, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		handler.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(`"allowed":true`)) {
			b.Fatalf("%d %.300s", rec.Code, rec.Body.String())
		}
	}
	for _, skip := range []bool{false, true} {
		name := "schema"
		if skip {
			name = "schema-skipped"
		}
		b.Run(name, func(b *testing.B) {
			h.SchemaRedundant = func(schema.GroupVersionKind) bool { return skip }
			serve(b)
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			n := 0
			for b.Loop() {
				serve(b)
				n++
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n)/float64(len(body)), "alloc-B/in-B")
		})
	}
}
