package schema

import (
	"runtime"
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

// TestDecodeWalksOnlyWhereTheyChangeSomething: the API server's null pruning and
// defaulting copy a Structural per field they walk; decode runs them only where
// they can change the object (a null in it, a default in the schema), and they
// still do their work there.
func TestDecodeWalksOnlyWhereTheyChangeSomething(t *testing.T) {
	set, err := Load(KumaRelease("2.14"))
	if err != nil {
		t.Fatal(err)
	}
	mtp := func(targetRef any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTrafficPermission",
			"metadata": map[string]any{"name": "mtp-1", "namespace": "team-002"},
			"spec": map[string]any{"targetRef": targetRef, "from": []any{map[string]any{
				"targetRef": map[string]any{"kind": "Mesh"}, "default": map[string]any{"action": "Allow"},
			}}},
		}}
	}
	c := set.lookup(mtp(nil).GroupVersionKind())
	if c == nil || c.defaults {
		t.Fatalf("MeshTrafficPermission's CRD: want a schema without defaults, got %v", c)
	}
	u, _, ok := c.decode(mtp(nil))
	if !ok {
		t.Fatal("decode failed")
	}
	if _, has := u["spec"].(map[string]any)["targetRef"]; has {
		t.Error("a non-nullable null without a default was not pruned")
	}
	obj := mtp(map[string]any{"kind": "Mesh"})
	const n = 200
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		c.decode(obj)
	}
	runtime.ReadMemStats(&after)
	perObject := (after.TotalAlloc - before.TotalAlloc) / n
	t.Logf("%d bytes allocated per decode", perObject)
	if perObject > 7<<10 {
		t.Errorf("decoding a small MeshTrafficPermission allocated %d bytes; want at most 7 KiB (no null pruning or defaulting walk where they change nothing)", perObject)
	}
}
