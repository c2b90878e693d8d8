package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/meshguard/meshguard/internal/fastjson"
)

// FuzzAdmissionReview posts arbitrary bodies to both handlers as `meshguard
// serve` registers them (Admission: meshguard's codec, controller-runtime's for
// the rest): no panic, and every 200 answer is a well-formed AdmissionReview whose
// warnings respect the API server's limits.
func FuzzAdmissionReview(f *testing.F) {
	eng := testEngine()
	mut := Admission(admission.HandlerFunc(eng.Mutate), nil)
	val := Admission(admission.HandlerFunc(eng.Validate), nil)
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

// FuzzServerSetMetadata is the verdict and mutation keys' soundness on arbitrary objects:
// requests whose objects SplitOut cuts into the same pieces share a key, so an
// engine without the cache must answer them alike, whatever valid values stand in
// the cuts (here the original ones and a string).
func FuzzServerSetMetadata(f *testing.F) {
	eng := testEngine()
	eng.DisableVerdictCache = true
	for _, obj := range []string{
		`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTrafficPermission","metadata":{"name":"a","namespace":"ns","uid":"u","creationTimestamp":"2026-01-01T00:00:00Z","generation":1,"managedFields":[{"manager":"m","time":"t"}],"labels":{"kuma.io/mesh":"default"}},"spec":{"targetRef":{"kind":"Mesh"},"from":[{"targetRef":{"kind":"Mesh"},"default":{"action":"Allow"}}]}}`,
		`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTrafficPermission","metadata":{"name":"a","uid":7,"resourceVersion":null},"spec":{"to":[]}}`,
		`{"metadata":{"uid":{"a":[1,2]},"name":"b"},"metadata":{"generation":"x"}}`,
	} {
		f.Add([]byte(obj), "stamped")
	}
	f.Fuzz(func(t *testing.T, raw []byte, alt string) {
		var pieces [][]byte
		if !fastjson.SplitOut(raw, "metadata", serverSet, func(b []byte) { pieces = append(pieces, b) }) {
			return
		}
		altJSON, err := json.Marshal(alt)
		if err != nil {
			return
		}
		other := bytes.Join(pieces, altJSON)
		answer := func(obj []byte) admission.Response {
			req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
				UID: "1", Operation: admissionv1.Create, Name: "a", Namespace: "ns",
				Kind:   metav1.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshTrafficPermission"},
				Object: runtime.RawExtension{Raw: obj},
			}}
			return eng.Validate(context.Background(), req)
		}
		a, b := answer(raw), answer(other)
		if diff := cmp.Diff(a, b); diff != "" {
			t.Fatalf("objects differing only in server-set metadata get different answers:\n%s\n%s\n%s", raw, other, diff)
		}
		// The mutation cache keys on the same pieces.
		mutate := func(obj []byte) admission.Response {
			return eng.Mutate(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
				UID: "1", Operation: admissionv1.Create, Name: "a", Namespace: "ns",
				Kind:   metav1.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshTrafficPermission"},
				Object: runtime.RawExtension{Raw: obj},
			}})
		}
		if diff := cmp.Diff(mutate(raw), mutate(other), samePatch); diff != "" {
			t.Fatalf("objects differing only in server-set metadata get different patches:\n%s\n%s\n%s", raw, other, diff)
		}
	})
}
