package webhook

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// FuzzAdmissionReview posts arbitrary bodies to both handlers as `meshguard
// serve` registers them (behind controller-runtime's admission webhook): no panic,
// and every 200 answer is a well-formed AdmissionReview whose warnings respect the
// API server's limits.
func FuzzAdmissionReview(f *testing.F) {
	eng := testEngine()
	mut := &crwebhook.Admission{Handler: admission.HandlerFunc(eng.Mutate)}
	val := &crwebhook.Admission{Handler: admission.HandlerFunc(eng.Validate)}
	seed := func(op, obj string) string {
		return `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","kind":{"group":"kuma.io","version":"v1alpha1","kind":"MeshTrafficPermission"},"operation":"` + op + `","namespace":"ns","userInfo":{"username":"u"},"object":` + obj + `}}`
	}
	f.Add([]byte(seed("CREATE", `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTrafficPermission","metadata":{"name":"a"},"spec":{"from":[{"targetRef":{"kind":"Mesh"},"default":{"action":"Allow"}}]}}`)))
	f.Add([]byte(seed("UPDATE", `{"metadata":{"labels":{"kuma.io/mesh":7}},"spec":{"to":"x"}}`)))
	f.Add([]byte(seed("CREATE", `null`)))
	f.Add([]byte(`{"request":{"uid":"2","kind":{"group":"kuma.io","version":"v1alpha1","kind":"MeshHTTPRoute"},"operation":"CREATE","object":{"spec":{"to":[{"rules":[{"default":{"backendRefs":[{"kind":"MeshService","port":70000}]}}]}]}}}}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, h := range []http.Handler{mut, val} {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodPost, "/x", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				continue
			}
			var rev admissionv1.AdmissionReview
			if err := json.Unmarshal(rec.Body.Bytes(), &rev); err != nil || rev.Response == nil {
				t.Fatalf("malformed response %q: %v", rec.Body.String(), err)
			}
			total := 0
			for _, w := range rev.Response.Warnings {
				total += len(w)
				if len(w) > MaxWarningLen || bytes.ContainsAny([]byte(w), "\n\r") {
					t.Fatalf("bad warning %q", w)
				}
			}
			if total > MaxWarningsTotal {
				t.Fatalf("warnings total %d", total)
			}
		}
	})
}
