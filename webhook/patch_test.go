package webhook

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/defaults"
)

// mutateAndPatch runs the mutating handler on obj and returns obj's JSON with the
// answer's patch applied, as the API server stores it, and the number of ops.
func mutateAndPatch(t *testing.T, e *Handlers, obj *unstructured.Unstructured, namespace string) (map[string]any, int) {
	t.Helper()
	req := admissionRequest(t, "u", admissionv1.Create, obj, nil, "alice")
	req.Namespace = namespace
	resp := e.Mutate(context.Background(), req)
	if !resp.Allowed {
		t.Fatalf("mutation denied: %+v", resp.Result)
	}
	doc := req.Object.Raw
	if len(resp.Patches) > 0 {
		ops, err := json.Marshal(resp.Patches)
		if err != nil {
			t.Fatal(err)
		}
		p, err := jsonpatch.DecodePatch(ops)
		if err != nil {
			t.Fatal(err)
		}
		if doc, err = p.Apply(doc); err != nil {
			t.Fatalf("patch %s does not apply: %v", ops, err)
		}
	}
	var out map[string]any
	if err := json.Unmarshal(doc, &out); err != nil {
		t.Fatal(err)
	}
	return out, len(resp.Patches)
}

// TestPatchIsWhatApplyWrote checks that the patch built from ApplyChanges turns the
// request's object into exactly what defaults.Apply makes of it, in both sugar
// modes and on objects whose labels are absent, null, empty or partly set, whose
// label keys need escaping, and whose namespace comes from the request alone.
func TestPatchIsWhatApplyWrote(t *testing.T) {
	objs := map[string]string{
		"no labels, sugar everywhere": `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTrafficPermission","metadata":{"name":"a","namespace":"app"},
			"spec":{"from":[{"default":{"action":"Allow"}},{"targetRef":{},"default":{"action":"Deny"}}]}}`,
		"null labels": `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTrafficPermission","metadata":{"name":"a","namespace":"app","labels":null},
			"spec":{"targetRef":{"kind":"Mesh"},"from":[{"targetRef":{"kind":"Mesh"},"default":{"action":"Allow"}}]}}`,
		"empty labels": `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTrafficPermission","metadata":{"name":"a","namespace":"app","labels":{}},
			"spec":{"targetRef":null,"from":[]}}`,
		"labels partly set, keys to escape": `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"name":"a","namespace":"app",
			"labels":{"kuma.io/mesh":"other","a~b/c":"x","k8s.kuma.io/namespace":"wrong"}},
			"spec":{"targetRef":{"kind":"Mesh"},"to":[{"targetRef":{"kind":"MeshService","name":"backend"},"default":{"idleTimeout":"1s"}}]}}`,
		"route backendRefs and mirror": `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshHTTPRoute","metadata":{"name":"r","namespace":"app"},
			"spec":{"targetRef":{"kind":"Mesh"},"to":[7,{"targetRef":{"kind":"MeshService","name":"backend"},"rules":[{"matches":[{"path":{"type":"PathPrefix","value":"/"}}],
			"default":{"backendRefs":[{"kind":"MeshService","name":"v1","port":80},{"kind":"MeshService","name":"v2","namespace":"other","port":80}],
			"filters":[{"type":"RequestMirror","requestMirror":{"backendRef":{"kind":"MeshService","name":"m","port":80}}}]}}]}]}}`,
		"namespace from the request": `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTrafficPermission","metadata":{"name":"a"},
			"spec":{"targetRef":{"kind":"Mesh"},"from":[{"targetRef":{"kind":"Mesh"},"default":{"action":"Allow"}}]}}`,
	}
	for _, sugar := range []api.Sugar{api.SugarExpand, api.SugarKeep} {
		e := testEngine()
		e.Settings.Sugar = sugar
		for name, doc := range objs {
			t.Run(string(sugar)+"/"+name, func(t *testing.T) {
				obj := mustObj(t, doc)
				got, _ := mutateAndPatch(t, e, obj, "app")
				want := obj.DeepCopy()
				if want.GetNamespace() == "" {
					want.SetNamespace("app")
				}
				defaults.Apply(want, e.Registry.Lookup(want.GroupVersionKind()), e.Settings, api.Request{Operation: api.OpCreate})
				wantJSON := map[string]any{}
				if err := json.Unmarshal(mustJSON(t, want.Object), &wantJSON); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(wantJSON, got); diff != "" {
					t.Errorf("patched object differs from defaults.Apply's (-want +got):\n%s", diff)
				}
				// A second mutation of the result changes nothing.
				if _, n := mutateAndPatch(t, e, &unstructured.Unstructured{Object: got}, "app"); n != 0 {
					t.Errorf("the mutated object gets %d more patch operations", n)
				}
			})
		}
	}
}

// TestPatchCostIsWhatWasWritten mutates a policy of about 3 MB and one holding a
// value nested 10,000 deep (encoding/json's limit): the patch holds only the
// labels Apply wrote, and both are answered in well under the webhook's timeout.
func TestPatchCostIsWhatWasWritten(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 9990) + `1` + strings.Repeat(`}`, 9990)
	var from []string
	for i, size := 0, 0; size < 3_000_000; i++ {
		size += 120
		from = append(from, `{"targetRef":{"kind":"MeshSubset","tags":{"kuma.io/service":"svc-`+strings.Repeat("x", 40)+`-`+string(rune('a'+i%26))+`"}},"default":{"action":"Allow"}}`)
	}
	for name, doc := range map[string]string{
		"3 MB": `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTrafficPermission","metadata":{"name":"big","namespace":"app"},
			"spec":{"targetRef":{"kind":"Mesh"},"from":[` + strings.Join(from, ",") + `]}}`,
		"10,000 deep": `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTrafficPermission","metadata":{"name":"deep","namespace":"app"},
			"spec":{"targetRef":{"kind":"Mesh"},"deep":` + deep + `,"from":[{"targetRef":{"kind":"Mesh"},"default":{"action":"Allow"}}]}}`,
	} {
		t.Run(name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal([]byte(doc), &m); err != nil {
				t.Fatal(err)
			}
			e := testEngine()
			start := time.Now()
			_, n := mutateAndPatch(t, e, &unstructured.Unstructured{Object: m}, "app")
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("mutation took %v", d)
			}
			// kuma.io/mesh, k8s.kuma.io/namespace and kuma.io/policy-role: the
			// labels map is added whole.
			if n != 1 {
				t.Errorf("%d patch operations, want 1 (the labels)", n)
			}
		})
	}
}
