package schema

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the embedded JSON CRDs from the YAML files")

// TestEmbeddedJSONIsTheYAML: every CRD file kept under crds/ (the mesh's YAML,
// unchanged) has a JSON twin that decodes to the same CustomResourceDefinition, the
// twin is what is embedded, and no twin is left without its YAML. With -update the
// twins are written again.
func TestEmbeddedJSONIsTheYAML(t *testing.T) {
	yamls, err := filepath.Glob("crds/*/*.yaml")
	if err != nil || len(yamls) < 50 {
		t.Fatalf("CRD files: %d, %v", len(yamls), err)
	}
	for _, y := range yamls {
		j := strings.TrimSuffix(y, ".yaml") + ".json"
		data, err := os.ReadFile(y)
		if err != nil {
			t.Fatal(err)
		}
		want, err := yaml.YAMLToJSONStrict(data)
		if err != nil {
			t.Fatalf("%s: %v", y, err)
		}
		want = append(want, '\n')
		if *update {
			if err := os.WriteFile(j, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(j)
		if err != nil {
			t.Errorf("%s has no JSON twin (go test ./schema -run TestEmbeddedJSON -update): %v", y, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not %s in JSON (go test ./schema -run TestEmbeddedJSON -update)", j, y)
			continue
		}
		fromYAML := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(data, fromYAML); err != nil {
			t.Fatalf("%s: %v", y, err)
		}
		rel := filepath.Base(filepath.Dir(y))
		fromJSON, err := readCRD(rel, filepath.ToSlash(j))
		if err != nil {
			t.Fatalf("embedded %s: %v", j, err)
		}
		if !reflect.DeepEqual(fromYAML, fromJSON) {
			t.Errorf("%s decodes to another CRD than %s", j, y)
		}
	}
	twins, _ := filepath.Glob("crds/*/*.json")
	if len(twins) != len(yamls) {
		t.Errorf("%d JSON files for %d YAML files: remove the JSON of a removed CRD", len(twins), len(yamls))
	}
}

// TestReadCRDRefusesUnknownFields: the embedded JSON is read as strictly as the
// YAML was.
func TestReadCRDRefusesUnknownFields(t *testing.T) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	dec := strictCRDDecoder([]byte(`{"kind":"CustomResourceDefinition","spec":{"grup":"x"}}`))
	if err := dec.Decode(crd); err == nil || !strings.Contains(err.Error(), "grup") {
		t.Errorf("decode = %v, want the unknown field named", err)
	}
}
