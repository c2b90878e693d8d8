package schema

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestDefaultFillsTheCRDDefaultsOnACopy(t *testing.T) {
	set, err := Load(KumaRelease("2.14"))
	if err != nil {
		t.Fatal(err)
	}
	backend := map[string]any{"kind": "MeshService", "name": "b"}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kuma.io/v1alpha1", "kind": "MeshHTTPRoute",
		"metadata": map[string]any{"name": "r"},
		"spec": map[string]any{"to": []any{map[string]any{
			"targetRef": map[string]any{"kind": "MeshService", "name": "b"},
			"rules":     []any{map[string]any{"default": map[string]any{"backendRefs": []any{backend}}}},
		}}},
	}}
	out, ok := set.Default(obj)
	if !ok {
		t.Fatal("no schema for MeshHTTPRoute")
	}
	if _, has := backend["weight"]; has {
		t.Fatal("Default changed its input")
	}
	to := out.Object["spec"].(map[string]any)["to"].([]any)[0].(map[string]any)
	ref := to["rules"].([]any)[0].(map[string]any)["default"].(map[string]any)["backendRefs"].([]any)[0].(map[string]any)
	if ref["weight"] != int64(1) {
		t.Fatalf("backendRef weight = %v, want the CRD default 1", ref["weight"])
	}
	unknown := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Nope"}}
	if got, ok := set.Default(unknown); ok || got != unknown {
		t.Fatal("an unknown kind must come back unchanged with ok false")
	}
}
