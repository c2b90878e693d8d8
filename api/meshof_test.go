package api

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestMeshOf: the label first, then a Dataplane's or MeshGateway's top-level
// field, else none.
func TestMeshOf(t *testing.T) {
	for _, tc := range []struct {
		obj  map[string]any
		want string
	}{
		{map[string]any{"metadata": map[string]any{"labels": map[string]any{LabelMesh: "a"}}, "mesh": "b"}, "a"},
		{map[string]any{"metadata": map[string]any{}, "mesh": "b"}, "b"},
		{map[string]any{"metadata": map[string]any{}, "mesh": 3}, ""},
		{map[string]any{"metadata": map[string]any{}}, ""},
	} {
		if got := MeshOf(&unstructured.Unstructured{Object: tc.obj}); got != tc.want {
			t.Errorf("MeshOf(%v) = %q, want %q", tc.obj, got, tc.want)
		}
	}
}
