package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumaauthz"
)

// TestAnnotationBound: a MeshTrafficPermission that joins a group of hundreds of
// mesh-wide policies compiles to more than MaxAnnotationBytes; the annotation then
// lists the groups within the bound, and a warning line says so. Below the bound the
// full document is kept.
func TestAnnotationBound(t *testing.T) {
	mk := func(n int) []unstructured.Unstructured {
		var out []unstructured.Unstructured
		for i := range n {
			var from []any
			for j := range 4 {
				from = append(from, map[string]any{
					"targetRef": map[string]any{"kind": "MeshSubset", "tags": map[string]any{"kuma.io/service": fmt.Sprintf("client-%d-%d_ns_svc_80", i, j)}},
					"default":   map[string]any{"action": "Allow"}})
			}
			out = append(out, unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTrafficPermission",
				"metadata": map[string]any{"name": fmt.Sprintf("p-%04d", i), "namespace": "kuma-system",
					"uid": fmt.Sprint("uid-", i), "resourceVersion": "1", "labels": map[string]any{"kuma.io/mesh": "default"}},
				"spec": map[string]any{"targetRef": map[string]any{"kind": "Mesh"}, "from": from},
			}})
		}
		return out
	}
	opts := kumaauthz.Options{Form: kumaauthz.FormExpanded, MaxExpandedRules: 64}
	for _, n := range []int{3, 600} {
		stored := mk(n)
		index, err := IndexedPolicies(stored, api.DefaultSystemNS)
		if err != nil {
			t.Fatal(err)
		}
		p := NewPreview(index, opts)
		in := stored[0].DeepCopy()
		in.SetName("incoming")
		lines, ann := p(context.Background(), in, nil)
		joined := strings.Join(lines, "\n")
		if len(ann) == 0 || len(ann) > MaxAnnotationBytes {
			t.Fatalf("%d policies: annotation of %d bytes, want 1..%d", n, len(ann), MaxAnnotationBytes)
		}
		var doc struct {
			Truncated *boundedNote `json:"truncated"`
			Previews  []struct {
				Policies    []string `json:"policies"`
				PolicyCount int      `json:"policyCount"`
			} `json:"previews"`
		}
		if err := json.Unmarshal([]byte(ann), &doc); err != nil || len(doc.Previews) == 0 {
			t.Fatalf("%d policies: annotation is not the preview JSON (%v): %.300s", n, err, ann)
		}
		bounded := strings.Contains(joined, "exceeds the 256 KB annotation bound")
		switch n {
		case 3:
			if doc.Truncated != nil || bounded {
				t.Errorf("3 policies: bounded although small: %s", joined)
			}
		default:
			if doc.Truncated == nil || doc.Truncated.Bytes <= MaxAnnotationBytes || !bounded {
				t.Fatalf("%d policies: want the bounded document and its warning, got %+v\n%s", n, doc.Truncated, joined)
			}
			if pv := doc.Previews[0]; pv.PolicyCount != n+1 || len(pv.Policies) != maxListedPolicies {
				t.Errorf("bounded group: %d policies counted, %d listed; want %d, %d", pv.PolicyCount, len(pv.Policies), n+1, maxListedPolicies)
			}
			t.Logf("%d mesh-wide policies: %d KB compiled, %d bytes annotated", n, doc.Truncated.Bytes/1024, len(ann))
		}
	}
}
