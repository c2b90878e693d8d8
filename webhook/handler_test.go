package webhook

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumaauthz"
	"github.com/meshguard/meshguard/lint"
	"github.com/meshguard/meshguard/validate"
)

func testEngine(stored ...unstructured.Unstructured) *Handlers {
	s := api.DefaultSettings()
	index, err := IndexedPolicies(stored, s.SystemNamespace)
	if err != nil {
		panic(err) // only objects that are not Unstructured fail to be indexed
	}
	pv := NewPreview(index,
		kumaauthz.Options{Form: kumaauthz.FormExpanded, MaxExpandedRules: 64, SystemNamespace: s.SystemNamespace})
	return &Handlers{
		Registry: api.DefaultRegistry(), Settings: s, Log: logr.Discard(),
		PrivilegedUsers: map[string]bool{"system:serviceaccount:kuma-system:kuma-control-plane": true},
		Preview:         pv,
	}
}

// admissionRequest builds a decoded request the way controller-runtime hands it
// to the handlers.
func admissionRequest(t testing.TB, uid string, op admissionv1.Operation, obj, old *unstructured.Unstructured, user string) admission.Request {
	t.Helper()
	gvk := obj.GroupVersionKind()
	r := admissionv1.AdmissionRequest{
		UID: types.UID(uid), Operation: op,
		Kind: metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
		Name: obj.GetName(), Namespace: obj.GetNamespace(),
		UserInfo: authnv1.UserInfo{Username: user},
		Object:   runtime.RawExtension{Raw: mustJSON(t, obj.Object)},
	}
	if old != nil {
		r.OldObject = runtime.RawExtension{Raw: mustJSON(t, old.Object)}
	}
	return admission.Request{AdmissionRequest: r}
}

// review builds an AdmissionReview the way the API server sends it.
func review(t testing.TB, op admissionv1.Operation, obj, old *unstructured.Unstructured, user string) []byte {
	t.Helper()
	gvk := obj.GroupVersionKind()
	req := &admissionv1.AdmissionRequest{
		UID: types.UID("uid-" + obj.GetName()), Operation: op,
		Kind:     metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
		Resource: metav1.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: strings.ToLower(gvk.Kind) + "s"},
		Name:     obj.GetName(), Namespace: obj.GetNamespace(),
		UserInfo: authnv1.UserInfo{Username: user, Groups: []string{"system:authenticated"}},
		Object:   runtime.RawExtension{Raw: mustJSON(t, obj.Object)},
	}
	if old != nil {
		req.OldObject = runtime.RawExtension{Raw: mustJSON(t, old.Object)}
	}
	b, err := json.Marshal(admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Request: req})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustJSON(t testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// applyPatch applies the mutating response to obj, as the API server does.
func applyPatch(t *testing.T, obj *unstructured.Unstructured, resp *admissionv1.AdmissionResponse) *unstructured.Unstructured {
	t.Helper()
	if len(resp.Patch) == 0 {
		return obj.DeepCopy()
	}
	p, err := jsonpatch.DecodePatch(resp.Patch)
	if err != nil {
		t.Fatalf("patch does not decode: %v", err)
	}
	out, err := p.Apply(mustJSON(t, obj.Object))
	if err != nil {
		t.Fatalf("patch does not apply: %v", err)
	}
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(out, &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// TestWebhookMatchesLinter sends every example through the webhook over TLS (mutate,
// apply the patch, validate) and compares with `meshguard lint` on the same document:
// same verdict, same error field paths, codes in the causes, and a second mutation
// that yields no patch.
func TestWebhookMatchesLinter(t *testing.T) {
	client, base := tlsServer(t, testEngine())
	files, _ := filepath.Glob("../examples/*/*.yaml")
	docs := lint.Load(files, nil)
	if len(docs) < 20 {
		t.Fatalf("only %d example documents", len(docs))
	}
	opts := lint.Options{Settings: api.DefaultSettings(), Namespace: "default", Registry: api.DefaultRegistry()}
	for i := range docs {
		d := docs[i]
		t.Run(filepath.Base(d.File)+"/"+d.Object.GetName(), func(t *testing.T) {
			obj := d.Object.DeepCopy()
			if obj.GetNamespace() == "" {
				obj.SetNamespace("default")
			}
			findings, _ := lint.Lint([]lint.Document{{File: d.File, Object: d.Object.DeepCopy()}}, opts)
			var wantFields []string
			for _, f := range findings {
				if f.Severity == validate.SeverityError {
					wantFields = append(wantFields, f.Field)
				}
			}
			mresp, code := post(t, client, base+MutatePath, review(t, admissionv1.Create, obj, nil, "alice"))
			if code != http.StatusOK || !mresp.Allowed {
				t.Fatalf("mutation refused: %d %+v", code, mresp.Result)
			}
			mutated := applyPatch(t, obj, mresp)
			again, _ := post(t, client, base+MutatePath, review(t, admissionv1.Create, mutated, nil, "alice"))
			if len(again.Patch) != 0 {
				t.Errorf("second mutation patched again: %s", again.Patch)
			}
			vresp, _ := post(t, client, base+ValidatePath, review(t, admissionv1.Create, mutated, nil, "alice"))
			if vresp.Allowed != (len(wantFields) == 0) {
				t.Fatalf("webhook allowed=%v, linter errors at %v", vresp.Allowed, wantFields)
			}
			for _, w := range vresp.Warnings {
				if len(w) > MaxWarningLen || strings.ContainsAny(w, "\n\r") {
					t.Errorf("bad warning %q", w)
				}
			}
			if vresp.Allowed {
				return
			}
			if vresp.Result.Code != http.StatusUnprocessableEntity || vresp.Result.Reason != metav1.StatusReasonInvalid {
				t.Errorf("denial is %d %s, want 422 Invalid", vresp.Result.Code, vresp.Result.Reason)
			}
			var got []string
			for _, c := range vresp.Result.Details.Causes {
				got = append(got, c.Field)
				if !strings.Contains(c.Message, "[MG") {
					t.Errorf("cause without code: %s", c.Message)
				}
			}
			sort.Strings(got)
			sort.Strings(wantFields)
			if diff := cmp.Diff(wantFields, got); diff != "" {
				t.Errorf("cause fields (-lint +webhook):\n%s", diff)
			}
		})
	}
}

func TestWebhookRequests(t *testing.T) {
	stored := mustObj(t, `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: mesh-deny, namespace: kuma-system, labels: {kuma.io/mesh: default}}
spec:
  targetRef: {kind: Mesh}
  from: [{targetRef: {kind: Mesh}, default: {action: Deny}}]`)
	client, base := tlsServer(t, testEngine(*stored))
	mtp := mustObj(t, `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: allow-web, namespace: kuma-system, labels: {kuma.io/mesh: default}}
spec:
  targetRef: {kind: Mesh}
  from: [{targetRef: {kind: MeshSubset, tags: {kuma.io/service: web}}, default: {action: Allow}}]`)

	t.Run("MTP preview merges stored policies and annotates", func(t *testing.T) {
		resp, _ := post(t, client, base+ValidatePath, review(t, admissionv1.Create, mtp, nil, "alice"))
		if !resp.Allowed {
			t.Fatalf("denied: %+v", resp.Result)
		}
		joined := strings.Join(resp.Warnings, "\n")
		if !strings.Contains(joined, "kuma-system/mesh-deny") || !strings.Contains(joined, "kuma-system/allow-web") {
			t.Errorf("preview does not name both policies:\n%s", joined)
		}
		var ann struct {
			Previews []struct {
				Policies []string        `json:"policies"`
				RBAC     json.RawMessage `json:"rbac"`
			} `json:"previews"`
		}
		if err := json.Unmarshal([]byte(resp.AuditAnnotations["rbac-preview"]), &ann); err != nil || len(ann.Previews) == 0 || len(ann.Previews[0].RBAC) == 0 {
			t.Errorf("rbac-preview annotation: %v %q", err, resp.AuditAnnotations["rbac-preview"])
		}
	})
	t.Run("DELETE is allowed", func(t *testing.T) {
		resp, _ := post(t, client, base+ValidatePath, review(t, admissionv1.Delete, mtp, nil, "alice"))
		if !resp.Allowed {
			t.Error("DELETE denied")
		}
	})
	t.Run("UPDATE may not move the mesh", func(t *testing.T) {
		moved := mtp.DeepCopy()
		moved.SetLabels(map[string]string{api.LabelMesh: "other"})
		resp, _ := post(t, client, base+ValidatePath, review(t, admissionv1.Update, moved, mtp, "alice"))
		if resp.Allowed || resp.Result.Details.Causes[0].Field != "metadata.labels[kuma.io/mesh]" {
			t.Errorf("mesh move: %+v", resp.Result)
		}
	})
	t.Run("privileged users are not mutated", func(t *testing.T) {
		resp, _ := post(t, client, base+MutatePath, review(t, admissionv1.Create, mtp, nil, "system:serviceaccount:kuma-system:kuma-control-plane"))
		if !resp.Allowed || len(resp.Patch) != 0 {
			t.Errorf("privileged write patched: %s", resp.Patch)
		}
	})
	t.Run("unknown kinds pass untouched", func(t *testing.T) {
		cm := mustObj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n")
		for _, path := range []string{MutatePath, ValidatePath} {
			resp, _ := post(t, client, base+path, review(t, admissionv1.Create, cm, nil, "alice"))
			if !resp.Allowed || len(resp.Patch) != 0 {
				t.Errorf("%s: %+v", path, resp)
			}
		}
	})
	t.Run("malformed bodies get an error response, not a crash", func(t *testing.T) {
		for _, body := range []string{`{`, `{"request":null}`, `{"request":{"uid":"x","kind":{"group":"kuma.io","version":"v1alpha1","kind":"MeshTimeout"},"operation":"CREATE","object":[1,2]}}`} {
			resp, err := client.Post(base+ValidatePath, "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode >= 500 && resp.StatusCode != http.StatusInternalServerError {
				t.Errorf("%q: status %d", body, resp.StatusCode)
			}
		}
	})
}

func mustObj(t testing.TB, doc string) *unstructured.Unstructured {
	t.Helper()
	docs := lint.LoadBytes("test.yaml", []byte(doc))
	if len(docs) != 1 || docs[0].Err != nil {
		t.Fatalf("bad test object: %+v", docs)
	}
	return docs[0].Object
}
