package webhook

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gomodules.xyz/jsonpatch/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// samePatch compares JSON patches as sets of operations: jsonpatch.CreatePatch
// walks maps, so it lists the operations on an object's keys in random order (the
// same mutation, computed twice, comes out in two orders).
var samePatch = cmpopts.SortSlices(func(a, b jsonpatch.Operation) bool {
	return a.Path < b.Path || a.Path == b.Path && a.Operation < b.Operation
})

// TestMutationCacheMatchesUncached sends every example (creates, updates moving
// the mesh label, unchanged updates; by a user and by the mesh's sync) three times
// to an engine with the answer caches and to one without: the mutating answers
// must be the same, and the cache must hold one per distinct cacheable request.
func TestMutationCacheMatchesUncached(t *testing.T) {
	list := func(context.Context) ([]unstructured.Unstructured, bool) { return nil, true }
	cached, plain := newObserved(list, true), newObserved(list, false)
	reqs := exampleRequests(t)
	patched := 0
	for round := range 3 {
		for _, req := range reqs {
			got := cached.eng.Mutate(context.Background(), req)
			want := plain.eng.Mutate(context.Background(), req)
			if diff := cmp.Diff(want, got, samePatch); diff != "" {
				t.Fatalf("round %d, %s %s %s/%s by %s: cached mutation differs (-uncached +cached):\n%s", round,
					req.Operation, req.Kind.Kind, req.Namespace, req.Name, req.UserInfo.Username, diff)
			}
			if round == 0 && len(want.Patches) > 0 {
				patched++
			}
		}
	}
	if patched == 0 {
		t.Fatal("no example was patched; the comparison proves nothing")
	}
	keys := map[resultKey]bool{}
	for _, req := range reqs {
		if k, ok := cached.eng.mutationKey(req); ok {
			keys[k] = true
		}
	}
	if n, _ := cached.eng.mutations().len(); n != len(keys) || n < len(reqs)/4 {
		t.Errorf("%d cached mutations for %d requests, %d of them cacheable and distinct", n, len(reqs), len(keys))
	}
}

// TestServerSetMetadataDoesNotChangeMutations stamps every example with two
// different sets of the fields the API server sets (uid, creationTimestamp,
// generation, resourceVersion, managedFields): an engine without the cache gives
// both the same patch, and one with the cache answers the second from it.
func TestServerSetMetadataDoesNotChangeMutations(t *testing.T) {
	list := func(context.Context) ([]unstructured.Unstructured, bool) { return nil, true }
	cached, plain := newObserved(list, true), newObserved(list, false)
	for _, req := range exampleRequests(t) {
		a, b := stampedPair(t, req)
		want := plain.eng.Mutate(context.Background(), a)
		for _, r := range []admission.Request{b, a, b} {
			for name, eng := range map[string]*Engine{"uncached": plain.eng, "cached": cached.eng} {
				if diff := cmp.Diff(want, eng.Mutate(context.Background(), r), samePatch); diff != "" {
					t.Fatalf("%s %s %s/%s, %s engine: the patch depends on server-set metadata (-first +other):\n%s",
						req.Operation, req.Kind.Kind, req.Namespace, req.Name, name, diff)
				}
			}
		}
		ka, _ := cached.eng.mutationKey(a)
		if kb, ok := cached.eng.mutationKey(b); ok && kb != ka {
			t.Fatalf("%s %s %s/%s: requests differing only in server-set metadata have different mutation keys", req.Operation, req.Kind.Kind, req.Namespace, req.Name)
		}
	}
}

// TestMutationWarnsOnReplacedLabel checks that the mutating handler says when it
// replaces a label the user set (MG016), as an admission warning next to the patch,
// and stays silent when the label already has the computed value.
func TestMutationWarnsOnReplacedLabel(t *testing.T) {
	eng := testEngine()
	policy := func(role string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTimeout",
			"metadata": map[string]any{"name": "p", "namespace": "backend-ns", "labels": map[string]any{"kuma.io/policy-role": role}},
			"spec": map[string]any{"to": []any{map[string]any{
				"targetRef": map[string]any{"kind": "MeshService", "name": "backend"},
				"default":   map[string]any{"idleTimeout": "1h"}}}},
		}}
	}
	resp := eng.Mutate(context.Background(), admissionRequest(t, "u1", "CREATE", policy("consumer"), nil, "alice"))
	want := []string{`MG016 metadata.labels[kuma.io/policy-role]: "consumer" replaced by "producer": computed from namespace and targets`}
	if diff := cmp.Diff(want, resp.Warnings); diff != "" || !resp.Allowed || len(resp.Patches) == 0 {
		t.Errorf("allowed %v, %d patches, warnings (-want +got):\n%s", resp.Allowed, len(resp.Patches), diff)
	}
	resp = eng.Mutate(context.Background(), admissionRequest(t, "u2", "CREATE", policy("producer"), nil, "alice"))
	if len(resp.Warnings) != 0 {
		t.Errorf("the computed value was set; warnings %q", resp.Warnings)
	}
}
