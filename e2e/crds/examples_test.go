package crds

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/lint"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestExamplesSurviveTheSchema: every field of every valid example is declared by the
// CRD (or sits under a preserve-unknown part) with a matching type, so the API server
// stores the examples intact and the e2e suite and `make demo` read back what they
// applied. The API server's own pruning algorithm cross-checks the walk.
func TestExamplesSurviveTheSchema(t *testing.T) {
	reg := api.DefaultRegistry()
	byKind := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for _, c := range CRDs(reg) {
		byKind[c.Spec.Group+"/"+c.Spec.Versions[0].Name+"/"+c.Spec.Names.Kind] = c
	}
	docs := lint.Load([]string{filepath.Join("..", "..", "examples", "valid")}, nil)
	checked := 0
	for _, d := range docs {
		if d.Err != nil {
			t.Fatalf("%s#%d: %v", d.File, d.Index, d.Err)
		}
		gvk := d.Object.GroupVersionKind()
		crd := byKind[gvk.Group+"/"+gvk.Version+"/"+gvk.Kind]
		if crd == nil {
			if reg.IsGroupOf(gvk.Group) {
				t.Errorf("%s:%d: %s has no test CRD", d.File, d.Line, gvk)
			}
			continue
		}
		checked++
		where := fmt.Sprintf("%s:%d %s %s", d.File, d.Line, gvk.Kind, d.Object.GetName())
		for _, p := range undeclared(*crd.Spec.Versions[0].Schema.OpenAPIV3Schema, d.Object.Object) {
			t.Errorf("%s: %s", where, p)
		}
		if pruned := apiServerPrunes(t, crd, d.Object.Object); len(pruned) > 0 {
			t.Errorf("%s: the API server would prune %v", where, pruned)
		}
	}
	if checked == 0 {
		t.Fatal("no example of a registry kind found")
	}
	t.Logf("%d example objects checked", checked)
}

// TestUndeclaredFieldsAreFound shows both checks can fail: a section the kind lacks,
// an unknown key, a wrong type and a null are all reported.
func TestUndeclaredFieldsAreFound(t *testing.T) {
	obj := map[string]any{
		"apiVersion": "kuma.io/v1alpha1", "kind": "MeshRetry",
		"metadata": map[string]any{"name": "r", "namespace": "ns"},
		"spec": map[string]any{
			"targetRef": map[string]any{"kind": "Mesh", "nmae": "x"},
			"from":      []any{map[string]any{"default": map[string]any{"any": "thing"}}},
			"to": []any{map[string]any{
				"targetRef": map[string]any{"kind": "Mesh", "tags": map[string]any{"a": int64(1)}},
				"default":   map[string]any{"http": map[string]any{"numRetries": int64(3)}},
			}},
			"default": nil,
		},
	}
	var crd *apiextensionsv1.CustomResourceDefinition
	for _, c := range CRDs(api.DefaultRegistry()) {
		if c.Spec.Names.Kind == "MeshRetry" {
			crd = c
		}
	}
	got := undeclared(*crd.Spec.Versions[0].Schema.OpenAPIV3Schema, obj)
	want := []string{
		".spec.default: undeclared field",
		".spec.from: undeclared field",
		".spec.targetRef.nmae: undeclared field",
		".spec.to[0].targetRef.tags.a: int64 where the schema wants string",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("undeclared:\n got %q\nwant %q", got, want)
	}
	pruned := apiServerPrunes(t, crd, obj)
	if fmt.Sprint(pruned) != "[spec.default spec.from spec.targetRef.nmae]" {
		t.Errorf("pruned %v", pruned)
	}
}

// undeclared walks v against s the way the API server treats a custom resource and
// lists what it would drop (undeclared or null fields) or reject (wrong types).
// apiVersion, kind and metadata of the root are the API server's own business.
func undeclared(s apiextensionsv1.JSONSchemaProps, obj map[string]any) []string {
	var out []string
	for _, k := range sortedKeys(obj) {
		switch k {
		case "apiVersion", "kind", "metadata":
			continue
		}
		p, ok := s.Properties[k]
		if !ok {
			out = append(out, "."+k+": undeclared field")
			continue
		}
		out = walkValue(p, obj[k], "."+k, out)
	}
	return out
}

func walkValue(s apiextensionsv1.JSONSchemaProps, v any, path string, out []string) []string {
	free := s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
	if v == nil {
		if s.Nullable || (free && s.Type == "") {
			return out
		}
		return append(out, path+": undeclared field") // non-nullable nulls are dropped
	}
	if s.Type != "" && !hasType(s.Type, v) {
		return append(out, fmt.Sprintf("%s: %T where the schema wants %s", path, v, s.Type))
	}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			p, declared := s.Properties[k]
			switch {
			case declared:
				out = walkValue(p, x[k], path+"."+k, out)
			case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
				out = walkValue(*s.AdditionalProperties.Schema, x[k], path+"."+k, out)
			case !free:
				out = append(out, path+"."+k+": undeclared field")
			}
		}
	case []any:
		if s.Items != nil && s.Items.Schema != nil {
			for i, e := range x {
				out = walkValue(*s.Items.Schema, e, fmt.Sprintf("%s[%d]", path, i), out)
			}
		}
	}
	return out
}

// hasType reports whether the decoded value v is an instance of the OpenAPI type t;
// numbers decode as int64 or float64 depending on how they are written.
func hasType(t string, v any) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "integer":
		switch n := v.(type) {
		case int64, int:
			return true
		case float64:
			return n == math.Trunc(n)
		}
	case "number":
		switch v.(type) {
		case int64, int, float64:
			return true
		}
	}
	return false
}

// apiServerPrunes runs the API server's pruning on a copy of obj and returns the
// paths it would remove.
func apiServerPrunes(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, obj map[string]any) []string {
	t.Helper()
	s := structural(t, crd)
	cp := runtime.DeepCopyJSON(obj)
	return pruning.PruneWithOptions(cp, s, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
}
