package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/meshguard/meshguard/internal/fastjson"
)

// echo answers with what it read from the request, in every shape of answer a
// handler gives (allowed with warnings and annotations, denied with causes,
// patched, errored), so that comparing two codecs' answers compares their
// decoding of every field as well as their encoding.
func echo(_ context.Context, req admission.Request) admission.Response {
	switch req.Operation {
	case admissionv1.Delete:
		errs := field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), req.Name, string(req.UID)),
			field.Required(field.NewPath("spec").Child(req.Namespace), req.UserInfo.Username)}
		st := apierrors.NewInvalid(schema.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind}, req.Name, errs)
		return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Result: &st.ErrStatus, Warnings: req.UserInfo.Groups}}
	case admissionv1.Connect:
		return admission.Errored(http.StatusBadRequest, errors.New(req.Name+string(req.Options.Raw)))
	case admissionv1.Update:
		// Patches built by hand: PatchResponseFromRaw's diff of two fuzzed objects
		// can take minutes.
		return admission.Patched(req.Name,
			jsonpatch.NewOperation("add", "/metadata/name", req.Name),
			jsonpatch.NewOperation("replace", "/spec", string(req.OldObject.Raw)))
	}
	resp := admission.Allowed(req.Namespace)
	resp.Warnings = []string{req.Name, string(req.UID), req.SubResource, req.RequestSubResource, fmt.Sprint(req.DryRun != nil, req.DryRun != nil && *req.DryRun)}
	resp.AuditAnnotations = map[string]string{
		"object": string(req.Object.Raw), "old": string(req.OldObject.Raw), "options": string(req.Options.Raw),
		"kind": fmt.Sprint(req.Kind, req.Resource, req.RequestKind, req.RequestResource),
		"user": fmt.Sprint(req.UserInfo.UID, req.UserInfo.Groups, req.UserInfo.Extra),
	}
	return resp
}

// serveBoth sends body to controller-runtime's admission webhook and to Admission,
// both serving h, and returns their recorded answers.
func serveBoth(h admission.HandlerFunc, body []byte, contentType string) (cr, ours *httptest.ResponseRecorder) {
	send := func(handler http.Handler) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/validate", bytes.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		handler.ServeHTTP(rec, req)
		return rec
	}
	return send(&crwebhook.Admission{Handler: h}), send(Admission(h, nil))
}

// sameAnswer fails when the two answers differ in status, headers or bytes.
func sameAnswer(t *testing.T, body []byte, cr, ours *httptest.ResponseRecorder) {
	t.Helper()
	if cr.Code != ours.Code || !bytes.Equal(cr.Body.Bytes(), ours.Body.Bytes()) {
		t.Fatalf("answers differ for %q:\ncontroller-runtime %d %s\nmeshguard          %d %s", body, cr.Code, cr.Body, ours.Code, ours.Body)
	}
	if diff := cmp.Diff(cr.Header(), ours.Header()); diff != "" {
		t.Fatalf("headers differ for %q:\n%s", body, diff)
	}
}

// apiServerReview is an AdmissionReview as the API server writes it: the
// fields of every kind of request, in encoding/json's form.
func apiServerReview(op admissionv1.Operation, obj, old string) admissionv1.AdmissionReview {
	dry := op == admissionv1.Update
	req := &admissionv1.AdmissionRequest{
		UID:             "705ab4f5-6393-11e8-b7cc-42010a800002",
		Kind:            metav1.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshTrafficPermission"},
		Resource:        metav1.GroupVersionResource{Group: "kuma.io", Version: "v1alpha1", Resource: "meshtrafficpermissions"},
		RequestKind:     &metav1.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshTrafficPermission"},
		RequestResource: &metav1.GroupVersionResource{Group: "kuma.io", Version: "v1alpha1", Resource: "meshtrafficpermissions"},
		Name:            "allow-web", Namespace: "kuma-demo", Operation: op,
		UserInfo: authenticationv1.UserInfo{Username: "kubernetes-admin", UID: "u-1", Groups: []string{"kubeadm:cluster-admins", "system:authenticated"},
			Extra: map[string]authenticationv1.ExtraValue{"authentication.kubernetes.io/credential-id": {"X509SHA256=ab"}}},
		DryRun:  &dry,
		Options: runtime.RawExtension{Raw: []byte(`{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1","fieldManager":"kubectl-client-side-apply","fieldValidation":"Strict"}`)},
	}
	if obj != "" {
		req.Object.Raw = []byte(obj)
	}
	if old != "" {
		req.OldObject.Raw = []byte(old)
	}
	return admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{Kind: "AdmissionReview", APIVersion: "admission.k8s.io/v1"}, Request: req}
}

const reviewObject = `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTrafficPermission","metadata":{"name":"allow-web","namespace":"kuma-demo","uid":"a","creationTimestamp":"2026-01-01T00:00:00Z","labels":{"kuma.io/mesh":"default"},"annotations":{"note":"<b>\u2028 & é"}},"spec":{"targetRef":{"kind":"MeshService","name":"web"},"from":[{"targetRef":{"kind":"MeshSubset","tags":{"app":"frontend","weight":1e400}},"default":{"action":"Allow"}}]}}`

func reviewSeeds(t testing.TB) [][]byte {
	t.Helper()
	var seeds [][]byte
	for _, ar := range []admissionv1.AdmissionReview{
		apiServerReview(admissionv1.Create, reviewObject, ""),
		apiServerReview(admissionv1.Update, reviewObject, strings.Replace(reviewObject, "frontend", "backend", 1)),
		apiServerReview(admissionv1.Delete, "", reviewObject),
		apiServerReview(admissionv1.Connect, `{"kind":"PodExecOptions"}`, ""),
	} {
		b, err := json.Marshal(ar)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b,
			bytes.Replace(b, []byte(`admission.k8s.io/v1"`), []byte(`admission.k8s.io/v1beta1"`), 1),
			bytes.ReplaceAll(b, []byte(`,"`), []byte(",\n  \"")))
	}
	return append(seeds,
		[]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"1","uid":"2","operation":"CREATE"}}`),
		[]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"1","operation":"CREATE","dryRun":null,"object":null,"requestKind":null,"userInfo":{"groups":[],"extra":{}}}}`),
		[]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"u\u0069d":"1","operation":"CREATE"}}`),
		[]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"UID":"1","operation":"CREATE"}}`),
		[]byte(`{"Kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"1"}}`),
		[]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v2","request":{"uid":"1"}}`),
		[]byte(`{"apiVersion":"admission.k8s.io/v1","request":{"uid":"1"}}`),
		[]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"\ud800x","name":"a\u00e9\u2028<>&","object":{"a":[1,-2.5e-3,true,null,"\u0000"]}}} `),
		[]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"1","object":{"a":01}}}`),
		[]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"1"}}x`),
		[]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":null}`),
		[]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"1"}}`),
		[]byte("kind: AdmissionReview\napiVersion: admission.k8s.io/v1\nrequest:\n  uid: \"1\"\n"),
		[]byte(` {"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"1"}}`),
		[]byte(`{}`), []byte(``), []byte(`null`),
	)
}

// TestReviewCodecMatchesControllerRuntime sends API-server-shaped reviews and
// corner cases to both codecs: every answer must be the same bytes, and the
// API server's own shapes must take the fast path.
func TestReviewCodecMatchesControllerRuntime(t *testing.T) {
	for i, body := range reviewSeeds(t) {
		cr, ours := serveBoth(echo, body, "application/json")
		sameAnswer(t, body, cr, ours)
		if _, _, ok := decodeReview(body); i < 12 && !ok {
			t.Errorf("seed %d (%s) is written as the API server writes reviews but is not decoded by decodeReview", i, body)
		}
	}
	body := reviewSeeds(t)[0]
	for _, ct := range []string{"application/yaml", "", "application/json; charset=utf-8"} {
		cr, ours := serveBoth(echo, body, ct)
		sameAnswer(t, body, cr, ours)
		if cr.Code != http.StatusOK || !strings.Contains(cr.Body.String(), `"code":400`) {
			t.Errorf("content type %q: want controller-runtime's 400 answer, got %d %s", ct, cr.Code, cr.Body)
		}
	}
}

// FuzzReviewCodec is the fast codec's contract on arbitrary bodies: the same
// answer as controller-runtime's, byte for byte, and where decodeReview accepts
// a body, the same request and review version as controller-runtime decodes.
func FuzzReviewCodec(f *testing.F) {
	for _, s := range reviewSeeds(f) {
		f.Add(s)
	}
	// The reviews `meshguard serve --offline` is tried with (docs/webhook.md).
	examples, _ := filepath.Glob("../examples/admission/*.json")
	for _, path := range examples {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		cr, ours := serveBoth(echo, body, "application/json")
		sameAnswer(t, body, cr, ours)
		got, gvk, ok := decodeReview(body)
		if !ok {
			return
		}
		var want admission.Request
		capture := func(_ context.Context, req admission.Request) admission.Response {
			want = req
			return admission.Allowed("")
		}
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		(&crwebhook.Admission{Handler: admission.HandlerFunc(capture)}).ServeHTTP(rec, req)
		if diff := cmp.Diff(want.AdmissionRequest, got); diff != "" {
			t.Fatalf("decodeReview(%q) differs from controller-runtime (-cr +ours):\n%s", body, diff)
		}
		var rev struct{ Kind, APIVersion string }
		if err := json.Unmarshal(rec.Body.Bytes(), &rev); err != nil || rev.Kind != gvk.Kind || rev.APIVersion != gvk.GroupVersion().String() {
			t.Fatalf("review version: controller-runtime answered %s/%s (%v), decodeReview read %v", rev.APIVersion, rev.Kind, err, gvk)
		}
	})
}

// TestAppendReviewMatchesEncodingJSON compares appendReview with encoding/json on
// random answers of every field, with strings that need escaping.
func TestAppendReviewMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"", "a", "é", "<", ">", "&", `"`, `\`, "\n", "\t", "\x00", "\x7f", "\u2028", "\u2029", "\xff", "\xe2\x80", "🙂", "kuma.io/mesh", " "}
	str := func() string {
		var b strings.Builder
		for range rng.IntN(6) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	strs := func() []string {
		if rng.IntN(3) == 0 {
			return nil
		}
		out := make([]string, rng.IntN(4))
		for i := range out {
			out[i] = str()
		}
		return out
	}
	// Long strings that recur, as a cached verdict's annotation does, go through
	// the memo's remembered JSON.
	memo := newStringMemo()
	long := make([]string, 4)
	for i := range long {
		var b strings.Builder
		for b.Len() < memoMinLen {
			b.WriteString(str())
		}
		long[i] = b.String()
	}
	maybeLong := func() string {
		if rng.IntN(3) == 0 {
			return long[rng.IntN(len(long))]
		}
		return str()
	}
	for i := range 20000 {
		r := admissionv1.AdmissionResponse{UID: types.UID("u-" + str()), Allowed: rng.IntN(2) == 0, Warnings: strs()}
		if rng.IntN(4) > 0 {
			r.Result = &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: str(), APIVersion: str()}, Status: str(), Message: maybeLong(),
				Reason: metav1.StatusReason(str()), Code: int32(rng.IntN(3)*200 - 200)}
			if rng.IntN(2) == 0 {
				d := &metav1.StatusDetails{Name: str(), Group: str(), Kind: str(), UID: types.UID("x" + str()), RetryAfterSeconds: int32(rng.IntN(3) - 1)}
				for range rng.IntN(3) {
					d.Causes = append(d.Causes, metav1.StatusCause{Type: metav1.CauseType(str()), Message: str(), Field: str()})
				}
				r.Result.Details = d
			}
		}
		if rng.IntN(3) == 0 {
			r.Patch = []byte(str())
			pt := admissionv1.PatchType(str())
			r.PatchType = &pt
		}
		if rng.IntN(2) == 0 {
			r.AuditAnnotations = map[string]string{}
			for range rng.IntN(4) {
				r.AuditAnnotations[str()] = maybeLong()
			}
		}
		gvk := schema.GroupVersionKind{Group: "admission.k8s.io", Version: "v1", Kind: "AdmissionReview"}
		if i%7 == 0 {
			gvk = schema.GroupVersionKind{Version: str(), Kind: str()}
		}
		var want bytes.Buffer
		ar := admissionv1.AdmissionReview{Response: &r}
		ar.SetGroupVersionKind(gvk)
		if err := json.NewEncoder(&want).Encode(ar); err != nil {
			t.Fatal(err)
		}
		got, ok := appendReview(nil, gvk, &r, memo)
		if !ok || !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("appendReview (ok=%v):\n%s\nencoding/json:\n%s", ok, got, want.Bytes())
		}
	}
	if len(memo.known) == 0 {
		t.Error("no recurring long string was remembered: the memo was not exercised")
	}
	withList := admissionv1.AdmissionResponse{Result: &metav1.Status{ListMeta: metav1.ListMeta{Continue: "x"}}}
	if _, ok := appendReview(nil, schema.GroupVersionKind{}, &withList, nil); ok {
		t.Error("appendReview wrote a status with list metadata; it must leave it to encoding/json")
	}
}

// TestAdmissionReportsCodec: the callback behind meshguard_admission_reviews_total
// hears of every request, and which codec read it.
func TestAdmissionReportsCodec(t *testing.T) {
	var fast, slow int
	h := Admission(admission.HandlerFunc(echo), func(ok bool) {
		if ok {
			fast++
		} else {
			slow++
		}
	})
	seeds := reviewSeeds(t)
	send := func(body []byte, contentType string) {
		req := httptest.NewRequest(http.MethodPost, "/validate", bytes.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	send(seeds[0], "application/json")
	send(seeds[0], "text/plain")
	send([]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"1","uid":"2"}}`), "application/json")
	if fast != 1 || slow != 2 {
		t.Errorf("one review in the API server's form, one of another content type, one with a repeated field: counted %d by meshguard's codec and %d by controller-runtime's, want 1 and 2", fast, slow)
	}
}

// TestStringMemoBounds: strings written once leave a hash each, never their text,
// and neither map grows past its bound however many distinct strings pass.
func TestStringMemoBounds(t *testing.T) {
	m := newStringMemo()
	base := strings.Repeat(`{"a":"<b>"}`, memoMinLen/8)
	for i := range 3 * memoMaxSeen {
		s := fmt.Sprint(base, i)
		if got := string(m.appendString(nil, s)); got != string(fastjson.AppendString(nil, s)) {
			t.Fatalf("appendString(%q) = %s", s, got)
		}
		if i%3 == 0 { // every third string comes back, and is remembered
			m.appendString(nil, s)
		}
	}
	if len(m.seen) > memoMaxSeen || len(m.known) > memoMaxEntries || m.bytes > memoMaxBytes {
		t.Errorf("memo past its bounds: %d seen, %d known, %d bytes", len(m.seen), len(m.known), m.bytes)
	}
	if len(m.known) == 0 {
		t.Error("no string written twice was remembered")
	}
	short := "short <string>"
	m.appendString(nil, short)
	m.appendString(nil, short)
	for _, e := range m.known {
		if e.s == short {
			t.Error("a string under memoMinLen was remembered")
		}
	}
}
