package load

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/meshguard/meshguard/hack/bench/kit"
	"github.com/meshguard/meshguard/webhook/webhooktest"
)

// TestSendChecksAnswers runs Send against real servers over TLS: meshguard's
// handler and the no-op pass with every answer decoded and with the quick check;
// answers that deny, name another uid or are not JSON fail (the last only when
// decoded, which the sampling decides).
func TestSendChecksAnswers(t *testing.T) {
	dir := t.TempDir()
	roots, err := kit.WriteCerts(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	serve := func(path string, h http.Handler) string {
		url, err := kit.Serve(ctx, dir, path, h)
		if err != nil {
			t.Fatal(err)
		}
		return url
	}
	create, err := webhooktest.NewReview()
	if err != nil {
		t.Fatal(err)
	}
	update, err := webhooktest.NewUnchangedUpdate()
	if err != nil {
		t.Fatal(err)
	}
	eng, err := webhooktest.NewHandlers(webhooktest.StoredPolicies())
	if err != nil {
		t.Fatal(err)
	}
	good := map[string]string{"meshguard": serve("/validate", webhooktest.ControllerRuntime(eng.Validate)), "no-op": serve("/noop", webhooktest.ControllerRuntime(webhooktest.Noop))}
	bad := map[string]string{
		"denied": serve("/deny", webhooktest.ControllerRuntime(func(context.Context, admission.Request) admission.Response { return admission.Denied("no") })),
	}
	// controller-runtime always answers with the request's uid; a server that does
	// not (or answers with broken JSON) is a plain HTTPS server.
	raw := func(body func(uid string) string) *httptest.Server {
		ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var rev admissionv1.AdmissionReview
			if err := json.NewDecoder(r.Body).Decode(&rev); err != nil || rev.Request == nil {
				http.Error(w, "bad review", http.StatusBadRequest)
				return
			}
			io.WriteString(w, body(string(rev.Request.UID)))
		}))
		t.Cleanup(ts.Close)
		return ts
	}
	wrongUID := raw(func(uid string) string {
		return `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"` + uid + `x","allowed":true}}`
	})
	truncated := raw(func(uid string) string {
		return `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"` + uid + `","allowed":true`
	})
	for _, every := range []int{1, 4} {
		load := &Load{Client: wrongUID.Client(), Review: create, DecodeEvery: every}
		for i := range 8 {
			if err := load.Send(ctx, Target{Name: "wrong uid", URL: wrongUID.URL}); err == nil || !strings.Contains(err.Error(), "uid") {
				t.Errorf("decode every %d, wrong uid, request %d: got %v", every, i, err)
			}
		}
		load = &Load{Client: truncated.Client(), Review: create, DecodeEvery: every}
		failed := 0
		for range 8 {
			if load.Send(ctx, Target{Name: "truncated", URL: truncated.URL}) != nil {
				failed++
			}
		}
		// Only decoded answers can show the JSON is broken: all of them, or the
		// first and the fifth of eight.
		if want := map[int]int{1: 8, 4: 2}[every]; failed != want {
			t.Errorf("decode every %d: %d of 8 truncated answers failed, want %d", every, failed, want)
		}
	}
	for _, every := range []int{1, 4} {
		load := &Load{Client: kit.NewClient(roots, 2, 5*time.Second), Review: create, DecodeEvery: every}
		for name, url := range good {
			for _, r := range []*webhooktest.Review{create, update} {
				tg := Target{Name: name, URL: url}.WithReviews([]*webhooktest.Review{r})
				for i := range 8 {
					if err := load.Send(ctx, tg); err != nil {
						t.Errorf("decode every %d, %s, request %d: %v", every, name, i, err)
					}
				}
			}
		}
		for name, url := range bad {
			for i := range 8 {
				err := load.Send(ctx, Target{Name: name, URL: url})
				if err == nil {
					t.Errorf("decode every %d, %s, request %d: got %v", every, name, i, err)
				}
			}
		}
	}
}
