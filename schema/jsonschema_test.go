package schema_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/defaults"
	"github.com/meshguard/meshguard/schema"
)

// mutated is j as meshguard's mutating webhook stores it: the API server checks the
// schema after the webhook, so the shorthand the webhook expands (an implied
// targetRef) is not a schema violation.
func mutated(t *testing.T, j []byte) []byte {
	t.Helper()
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(j); err != nil {
		t.Fatal(err)
	}
	reg := api.DefaultRegistry()
	if k := reg.Lookup(obj.GroupVersionKind()); k != nil {
		defaults.Apply(obj, k, api.DefaultSettings(), api.Request{Operation: api.OpCreate})
	}
	out, err := obj.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// exampleDocs reads every Kubernetes object of the YAML files matching glob, as JSON.
func exampleDocs(t *testing.T, glob string) map[string][]byte {
	t.Helper()
	files, _ := filepath.Glob(glob)
	if len(files) == 0 {
		t.Fatalf("no files match %s", glob)
	}
	out := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
			j, err := yaml.YAMLToJSON([]byte(doc))
			if err != nil {
				t.Fatalf("%s #%d: %v", f, i, err)
			}
			if string(j) != "null" {
				out[f+"#"+string(rune('0'+i))] = j
			}
		}
	}
	return out
}

// TestJSONSchemasValidateExamples checks the generated schemas with a JSON Schema
// library, as an editor would use them: every valid example passes (as the mutating
// webhook stores it), and an example with a wrong type fails. The schemas are one
// Kuma release's and Linkerd's, as `meshguard schema` writes them (two Kuma releases
// would write the same paths).
func TestJSONSchemasValidateExamples(t *testing.T) {
	files, err := schema.JSONSchemas(schema.KumaRelease(schema.DefaultKumaVersion), schema.LinkerdRelease(schema.DefaultLinkerdVersion))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	byPath := map[string]bool{}
	for _, f := range files {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(f.Data))
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		if err := c.AddResource("file:///"+f.Path, doc); err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		byPath[f.Path] = true
	}
	if !byPath["kuma.io/meshtimeout_v1alpha1.json"] || !byPath["policy.linkerd.io/server_v1beta3.json"] {
		t.Errorf("layout: missing kuma.io/meshtimeout_v1alpha1.json or policy.linkerd.io/server_v1beta3.json among %d files", len(files))
	}
	checked := 0
	check := func(name string, j []byte) error {
		var tm struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal(j, &tm); err != nil {
			t.Fatal(err)
		}
		group, version, _ := strings.Cut(tm.APIVersion, "/")
		p := group + "/" + strings.ToLower(tm.Kind) + "_" + version + ".json"
		if !byPath[p] {
			if group == "kuma.io" || strings.HasSuffix(group, "linkerd.io") {
				t.Errorf("%s: no schema %s", name, p)
			}
			return nil // not a mesh kind (a Deployment beside the policies)
		}
		checked++
		sch, err := c.Compile("file:///" + p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
		if err != nil {
			t.Fatal(err)
		}
		return sch.Validate(inst)
	}
	valid := exampleDocs(t, "../examples/valid/*.yaml")
	for name, j := range exampleDocs(t, "../examples/linkerd/valid/*.yaml") {
		valid[name] = j
	}
	for name, j := range valid {
		if err := check(name, mutated(t, j)); err != nil {
			t.Errorf("%s: a valid example fails its JSON schema: %v", name, err)
		}
	}
	for name, j := range exampleDocs(t, "../examples/invalid/wrong-type.yaml") {
		if err := check(name, j); err == nil {
			t.Errorf("%s: 'to' as a string passes its JSON schema", name)
		}
	}
}
