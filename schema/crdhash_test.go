package schema

import (
	"context"
	"encoding/json"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// TestSchemaHashSurvivesTheAPIServersRoundTrip: every embedded CRD, read back as
// the API server serves it (JSON, with its own formatting of raw values), has the
// hash of the embedded file, so an installed copy is recognised.
func TestSchemaHashSurvivesTheAPIServersRoundTrip(t *testing.T) {
	crds, err := CRDs(KumaRelease(DefaultKumaVersion), LinkerdRelease(DefaultLinkerdVersion))
	if err != nil {
		t.Fatal(err)
	}
	for _, crd := range crds {
		want, err := SchemaHash(crd)
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(crd)
		if err != nil {
			t.Fatal(err)
		}
		var served apiextensionsv1.CustomResourceDefinition
		if err := json.Unmarshal(data, &served); err != nil {
			t.Fatal(err)
		}
		// What the API server adds or changes outside the schema does not count.
		served.ResourceVersion, served.Generation = "42", 3
		served.Labels = map[string]string{"app.kubernetes.io/managed-by": "Helm"}
		served.Status.StoredVersions = []string{"v1alpha1"}
		if got, err := SchemaHash(&served); err != nil || got != want {
			t.Errorf("%s: hash %s after a JSON round trip, want %s (%v)", crd.Name, got, want, err)
		}
	}
}

// TestSchemaHashChangesWithWhatTheAPIServerChecks: a changed pattern, enum or
// served version changes the hash; an unserved version does not.
func TestSchemaHashChangesWithWhatTheAPIServerChecks(t *testing.T) {
	crd := mtpCRD(t)
	base, err := SchemaHash(crd)
	if err != nil {
		t.Fatal(err)
	}
	change := map[string]func(c *apiextensionsv1.CustomResourceDefinition){
		"a tighter pattern": func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = apiextensionsv1.JSONSchemaProps{Type: "object", MaxProperties: ptr(int64(1))}
		},
		"an enum value": func(c *apiextensionsv1.CustomResourceDefinition) {
			p := c.Spec.Versions[0].Schema.OpenAPIV3Schema
			p.Properties["kind"] = apiextensionsv1.JSONSchemaProps{Type: "string", Enum: []apiextensionsv1.JSON{{Raw: []byte(`"MeshTrafficPermission"`)}}}
		},
		"another served version": func(c *apiextensionsv1.CustomResourceDefinition) {
			v := *c.Spec.Versions[0].DeepCopy()
			v.Name, v.Storage = "v1alpha2", false
			c.Spec.Versions = append(c.Spec.Versions, v)
		},
	}
	for name, fn := range change {
		c := crd.DeepCopy()
		fn(c)
		if got, _ := SchemaHash(c); got == base {
			t.Errorf("%s: the hash did not change", name)
		}
	}
	c := crd.DeepCopy()
	v := *c.Spec.Versions[0].DeepCopy()
	v.Name, v.Served, v.Storage = "v1alpha0", false, false
	v.Schema.OpenAPIV3Schema.Properties["spec"] = apiextensionsv1.JSONSchemaProps{Type: "string"}
	c.Spec.Versions = append(c.Spec.Versions, v)
	if got, _ := SchemaHash(c); got != base {
		t.Error("a version the API server does not serve changed the hash")
	}
}

func ptr[T any](v T) *T { return &v }

// mtpCRD is the embedded MeshTrafficPermission CRD.
func mtpCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crds, err := CRDs(KumaRelease(DefaultKumaVersion))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range crds {
		if c.Name == "meshtrafficpermissions.kuma.io" {
			return c
		}
	}
	t.Fatal("no MeshTrafficPermission CRD embedded")
	return nil
}

// TestSetNamesItsCRDs: a set says which CRD serves a kind, with that CRD's hash.
func TestSetNamesItsCRDs(t *testing.T) {
	s, err := Load(KumaRelease(DefaultKumaVersion))
	if err != nil {
		t.Fatal(err)
	}
	want, err := SchemaHash(mtpCRD(t))
	if err != nil {
		t.Fatal(err)
	}
	gvk := schema.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshTrafficPermission"}
	got, ok := s.CRDOf(gvk)
	if !ok || got != (EmbeddedCRD{Name: "meshtrafficpermissions.kuma.io", Hash: want}) {
		t.Errorf("CRDOf = %+v, %v; want meshtrafficpermissions.kuma.io with hash %s", got, ok, want)
	}
	if all := s.EmbeddedCRDs(); all[got.Name] != got || len(all) < 20 {
		t.Errorf("EmbeddedCRDs has %d CRDs, MeshTrafficPermission's %+v", len(all), all[got.Name])
	}
	if _, ok := s.CRDOf(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Other"}); ok {
		t.Error("CRDOf answers for a kind the set does not serve")
	}
}

// TestEmbeddedResourcesStillChecked: Check skips the embedded-resource walk only
// for schemas without such nodes; a CRD with one still gets its embedded object
// the kind it must have (and the list-type walk runs where a list type is: TestCheckUpdateRatchetsListTypes).
func TestEmbeddedResourcesStillChecked(t *testing.T) {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: wrappers.example.com}
spec:
  group: example.com
  names: {kind: Wrapper, plural: wrappers}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              template:
                type: object
                x-kubernetes-embedded-resource: true
                x-kubernetes-preserve-unknown-fields: true
`), &crd); err != nil {
		t.Fatal(err)
	}
	kinds, err := compileVersions(&crd)
	if err != nil {
		t.Fatal(err)
	}
	s := &Set{kinds: kinds}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Wrapper", "metadata": map[string]any{"name": "w", "namespace": "ns"},
		"spec": map[string]any{"template": map[string]any{"apiVersion": "v1", "metadata": map[string]any{"name": "c"}}},
	}}
	res, ok := s.Check(context.Background(), obj)
	if !ok || len(res.Errors) == 0 {
		t.Fatalf("an embedded object without a kind passed: %v", res.Errors)
	}
	if got := res.Errors[0].Field; got != "spec.template.kind" {
		t.Errorf("error at %s, want spec.template.kind", got)
	}
}
