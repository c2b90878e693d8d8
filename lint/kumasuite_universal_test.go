package lint

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

// listedRefusal is a listed validator-suite difference where Kuma's test accepts
// and meshguard refuses: "verdict: Kuma valid, meshguard invalid (MG002 FIELD)".
var listedRefusal = regexp.MustCompile(`^verdict: Kuma valid, meshguard invalid \((MG\d{3}) (\S+)\)$`)

// TestKumaSuiteRefusalsUniversal holds the reason docs/conformance.md gives for the
// validator-suite entries Kuma's test accepts and meshguard refuses (2.13: 150, 156,
// 157, 182, 183): Kuma's Universal control plane refuses them too. `kumactl apply`
// (rest_types.YAML.UnmarshalCore) and the REST API's PUT (rest.JSON.Unmarshal) both
// validate the raw document against the kind's OpenAPI schema (rest.yaml, generated
// from the same Go types as the CRD: string retryOn items, string targetRef.tags,
// to[].rules required) before decoding it into Go structs; only Kuma's unit test
// decodes the spec alone with sigs.k8s.io/yaml into a typed struct, which turns 500
// into "500". So each entry, written as the Universal document kumactl apply takes,
// must be refused by meshguard's Universal path at the same field, under the
// release of its suite.
func TestKumaSuiteRefusalsUniversal(t *testing.T) {
	for _, r := range kumaValidatorSuites() {
		t.Run(r.version, func(t *testing.T) {
			s := api.DefaultSettings()
			s.KumaVersion = r.version
			if err := schema.LoadInto(&s); err != nil {
				t.Fatal(err)
			}
			o := Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry()}
			n := 0
			for diff := range listedDiffs(t, conformanceDoc, r.table, regexp.MustCompile(`^\s*\d{3}\s*$`)) {
				id, what, _ := strings.Cut(diff, ": ")
				m := listedRefusal.FindStringSubmatch(what)
				if m == nil {
					continue
				}
				n++
				in := universalCase(t, r.dir, id)
				fs, _ := Lint(LoadBytes(id+".yaml", in), o)
				if !refusedAt(fs, m[1], m[2]) {
					t.Errorf("Kuma %s case %s as a Universal document: want %s %s (Kuma Universal's schema refuses it), got %+v\n%s", r.version, id, m[1], m[2], fs, in)
				}
			}
			if n == 0 {
				t.Fatalf("no listed refusals for Kuma %s in docs/conformance.md (%s)", r.version, r.table)
			}
		})
	}
}

// refusedAt reports whether fs has an error with code at field.
func refusedAt(fs []Finding, code, field string) bool {
	for _, f := range fs {
		if f.Severity == "error" && f.Code == code && f.Field == field {
			return true
		}
	}
	return false
}

// universalCase writes the suite's manifest NNN-*.yaml in dir as the Universal
// document kumactl apply takes: type, name, mesh (the kuma.io/mesh label) and spec.
func universalCase(t *testing.T, dir, id string) []byte {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, id+"-*.yaml"))
	if len(files) != 1 {
		t.Fatalf("case %s: %d manifests in %s", id, len(files), dir)
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Kind     string `yaml:"kind"`
		Metadata struct {
			Name   string            `yaml:"name"`
			Labels map[string]string `yaml:"labels"`
		} `yaml:"metadata"`
		Spec yaml.Node `yaml:"spec"`
	}
	if err := yaml.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	out, err := yaml.Marshal(map[string]any{
		"type": m.Kind, "name": m.Metadata.Name, "mesh": m.Metadata.Labels[api.LabelMesh], "spec": &m.Spec,
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
