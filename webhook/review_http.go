package webhook

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// maxReviewBytes is controller-runtime's limit on an AdmissionReview body
// (admission.maxRequestSize, unexported): two objects of at most 3 MB each and
// the rest. A body this large or larger is left to controller-runtime, which
// refuses it.
const maxReviewBytes = 7 << 20

// Admission serves h as controller-runtime's admission webhook (crwebhook.Admission)
// does — same handler calls, same answers, byte for byte — but reads and writes
// the AdmissionReviews the API server sends with decodeReview and appendReview
// instead of apimachinery's deserializer and encoding/json. Everything else (no
// body, another content type, a body of unknown length or over the size limit, a
// review those functions do not accept) is served by controller-runtime's
// handler, unchanged. The server's Register wraps both in controller-runtime's
// request metrics.
//
// Why: decoding a 4 KB AdmissionReview with controller-runtime's codec cost more
// CPU than TLS and the HTTP exchange together in the load test (docs/performance.md),
// and the API server waits for every answer. What is not reproduced: controller-runtime's
// debug logs at verbosity 5 ("received request", "wrote response").
//
// decoded, when not nil, is told for every request whether the fast codec read
// it (true) or controller-runtime did: the server counts this in a metric, so
// that a change in what the API server sends shows as a rise of the fallbacks.
func Admission(h admission.Handler, decoded func(fast bool)) http.Handler {
	if decoded == nil {
		decoded = func(bool) {}
	}
	return &fastAdmission{wh: &crwebhook.Admission{Handler: h}, decoded: decoded, strs: newStringMemo()}
}

type fastAdmission struct {
	wh      *admission.Webhook
	decoded func(fast bool)
	// bufs holds answer buffers; an answer with an RBAC preview is ~7 KB.
	bufs sync.Pool
	// strs keeps the JSON of long strings that recur in answers (stringMemo).
	strs *stringMemo
}

// maxPooledAnswer keeps the occasional huge answer's buffer out of the pool.
const maxPooledAnswer = 64 << 10

func (a *fastAdmission) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength <= 0 || r.ContentLength >= maxReviewBytes ||
		r.Header.Get("Content-Type") != "application/json" {
		a.decoded(false)
		a.wh.ServeHTTP(w, r)
		return
	}
	body := make([]byte, r.ContentLength)
	if n, err := io.ReadFull(r.Body, body); err != nil {
		// controller-runtime reads it again and answers the error as it does.
		r.Body = replay{io.MultiReader(bytes.NewReader(body[:n]), errorReader{err}), r.Body}
		a.decoded(false)
		a.wh.ServeHTTP(w, r)
		return
	}
	req, gvk, ok := decodeReview(body)
	if !ok {
		r.Body = replay{bytes.NewReader(body), r.Body}
		a.decoded(false)
		a.wh.ServeHTTP(w, r)
		return
	}
	a.decoded(true)
	ctx := r.Context()
	if a.wh.WithContextFunc != nil {
		ctx = a.wh.WithContextFunc(ctx, r)
	}
	resp := a.wh.Handle(ctx, admission.Request{AdmissionRequest: req})

	bp, _ := a.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	out, ok := appendReview((*bp)[:0], gvk, &resp.AdmissionResponse, a.strs)
	if !ok {
		var buf bytes.Buffer
		ar := admissionv1.AdmissionReview{Response: &resp.AdmissionResponse}
		ar.SetGroupVersionKind(gvk)
		if err := json.NewEncoder(&buf).Encode(ar); err != nil {
			// What controller-runtime writes when its encoder fails.
			e := admission.Errored(http.StatusInternalServerError, err)
			buf.Reset()
			_ = json.NewEncoder(&buf).Encode(admissionv1.AdmissionReview{Response: &e.AdmissionResponse})
		}
		out = buf.Bytes()
	}
	_, _ = w.Write(out) // as controller-runtime, nothing to do when the client is gone
	if cap(out) <= maxPooledAnswer && ok {
		*bp = out
		a.bufs.Put(bp)
	}
}

// replay is a request body read again: the bytes already read, then the rest.
type replay struct {
	io.Reader
	io.Closer
}

// errorReader returns err, so that a replayed body fails where the original did.
type errorReader struct{ err error }

func (e errorReader) Read([]byte) (int, error) { return 0, e.err }
