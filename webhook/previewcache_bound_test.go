package webhook

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/kumaauthz"
)

// TestParsedPoliciesBounded reads more distinct stored policies than the parsed set
// keeps: every read still returns each policy, and the set never holds more than
// two generations.
func TestParsedPoliciesBounded(t *testing.T) {
	c := newPreviewCache(kumaauthz.Options{})
	n := 3*maxParsedPerGeneration + 17
	items := make([]unstructured.Unstructured, n)
	for i := range items {
		items[i] = unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTrafficPermission",
			"metadata": map[string]any{"name": fmt.Sprint("p-", i), "namespace": "ns", "uid": fmt.Sprint("uid-", i), "resourceVersion": "1"},
			"spec": map[string]any{"targetRef": map[string]any{"kind": "Mesh"}, "from": []any{map[string]any{
				"targetRef": map[string]any{"kind": "Mesh"}, "default": map[string]any{"action": "Allow"}}}},
		}}
	}
	for round := range 2 {
		for start := 0; start < n; start += 100 {
			batch := items[start:min(n, start+100)]
			got := c.read(batch)
			if len(got) != len(batch) {
				t.Fatalf("round %d: read %d of %d policies", round, len(got), len(batch))
			}
			for i, s := range got {
				if want := batch[i].GetName(); s.Policy.Name != want {
					t.Fatalf("round %d: policy %d is %s, want %s", round, i, s.Policy.Name, want)
				}
			}
			if kept := len(c.parsed) + len(c.previous); kept > 2*maxParsedPerGeneration {
				t.Fatalf("round %d: %d parsed policies kept, bound %d", round, kept, 2*maxParsedPerGeneration)
			}
		}
	}
}
