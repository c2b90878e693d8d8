package api

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

func universalDoc(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestFromUniversalPolicy(t *testing.T) {
	doc := universalDoc(t, `
type: MeshTimeout
name: mt-1
mesh: mesh-1
labels:
  kuma.io/origin: zone
  k8s.kuma.io/namespace: kuma-demo
spec:
  targetRef:
    kind: Mesh
`)
	if !IsUniversal(doc) {
		t.Fatal("IsUniversal = false for a Universal document")
	}
	u, err := FromUniversal(doc, DefaultRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if u.GetKind() != "MeshTimeout" || u.GetAPIVersion() != "kuma.io/v1alpha1" || u.GetName() != "mt-1" {
		t.Errorf("kind/apiVersion/name = %s/%s/%s", u.GetKind(), u.GetAPIVersion(), u.GetName())
	}
	if u.GetNamespace() != "kuma-demo" {
		t.Errorf("namespace = %q, want the k8s.kuma.io/namespace label", u.GetNamespace())
	}
	l := u.GetLabels()
	if l[LabelMesh] != "mesh-1" || l[LabelOrigin] != "zone" {
		t.Errorf("labels = %v, want the mesh label and the written ones", l)
	}
	spec, _ := u.Object["spec"].(map[string]any)
	if ref, _ := spec["targetRef"].(map[string]any); ref["kind"] != "Mesh" {
		t.Errorf("spec = %v", spec)
	}
}

func TestFromUniversalTopLevelFields(t *testing.T) {
	doc := universalDoc(t, `
type: Dataplane
name: dp-1
mesh: default
networking:
  address: 127.0.0.1
`)
	u, err := FromUniversal(doc, DefaultRegistry())
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := u.Object["spec"].(map[string]any)
	if _, ok := spec["networking"]; !ok || len(spec) != 1 {
		t.Errorf("spec = %v, want the top-level fields but type/name/mesh", spec)
	}
}

func TestFromUniversalErrors(t *testing.T) {
	for _, tc := range []struct{ doc, field string }{
		{"name: x\nspec: {}", "type"},
		{"type: MeshTimeout\nspec: {}", "name"},
		{"type: MeshTimeout\nname: x\nmesh: 3", "mesh"},
		{"type: MeshTimeout\nname: x\nlabels: {a: 1}", "labels[a]"},
	} {
		_, err := FromUniversal(universalDoc(t, tc.doc), DefaultRegistry())
		if err == nil || err.Field != tc.field {
			t.Errorf("%q: error %v, want one at %s", tc.doc, err, tc.field)
		}
	}
	if IsUniversal(map[string]any{"type": "x", "apiVersion": "v1", "kind": "ConfigMap"}) {
		t.Error("a Kubernetes manifest with a type field read as Universal")
	}
}
