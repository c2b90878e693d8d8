package lint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

// kumaResourceSuite is Kuma 2.14.3's own validator tests of its non-policy resources
// as manifests (see its README): one cases-<kind>.json per kind.
const kumaResourceSuite = "../validate/testdata/conformance/kuma-resource-validators-2.14"

// TestKumaResourceValidatorSuite lints every manifest of the resource suite of each
// Kuma release on its own, under that release's --kuma-version, and holds each
// difference from Kuma's verdict and fields against the table between the release's
// markers of docs/conformance.md (kuma-resource-suite for 2.14,
// kuma-resource-suite-2.13, kuma-resource-suite-3.0-preview), as TestKumaValidatorSuite does for the policies.
// -suite-kind prints only one kind's unlisted differences.
func TestKumaResourceValidatorSuite(t *testing.T) {
	for _, r := range []struct{ version, dir, table string }{
		{"2.14", kumaResourceSuite, "kuma-resource-suite"},
		{"2.13", "../validate/testdata/conformance/kuma-resource-validators-2.13", "kuma-resource-suite-2.13"},
		{"3.0-preview", "../validate/testdata/conformance/kuma-resource-validators-3.0-preview", "kuma-resource-suite-3.0-preview"},
	} {
		t.Run(r.version, func(t *testing.T) { runResourceSuite(t, r.version, r.dir, r.table) })
	}
}

// runResourceSuite runs the resource suite in dir under Kuma release version.
func runResourceSuite(t *testing.T, version, dir, table string) {
	files, _ := filepath.Glob(filepath.Join(dir, "cases-*.json"))
	if len(files) == 0 {
		t.Fatalf("no cases-*.json under %s", dir)
	}
	s := api.DefaultSettings()
	s.SystemNamespace = "kuma-system"
	s.KumaVersion = version
	if err := schema.LoadInto(&s); err != nil {
		t.Fatal(err)
	}
	o := Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry()}
	got := map[string]string{} // "<case>: difference" → kind and description
	total, agree, fieldsFound, fieldsAll := 0, 0, 0, 0
	for _, f := range files {
		for _, c := range readResourceCases(t, f) {
			total++
			fs, _, _ := Run([]string{filepath.Join(dir, c.File)}, nil, LoadOptions{}, o, nil)
			kuma := c
			kuma.Fields = make([]string, len(c.Fields))
			for i, kf := range c.Fields {
				kuma.Fields[i] = rewriteResourcePath(c.Kind, kf)
			}
			diffs, found, all := compareSuiteCase(kuma, fs)
			fieldsFound += found
			fieldsAll += all
			if !strings.HasPrefix(strings.Join(diffs, ""), "verdict") {
				agree++
			}
			for _, d := range diffs {
				got[caseKey(c.File)+": "+d] = c.Kind + ": " + c.Description
			}
		}
	}
	t.Logf("Kuma %s: %d/%d Kuma resource validator verdicts agree; %d/%d Kuma violation fields found", version, agree, total, fieldsFound, fieldsAll)
	holdFigures(t, version, "resource validators", total, agree)
	holdListed(t, suiteRows(got), listedDiffs(t, conformanceDoc, table, regexp.MustCompile(`^\s*[a-z]+-\d{3}\s*$`)),
		"differences from Kuma "+version+"'s resource validators", "docs/conformance.md ("+table+")")
}

func readResourceCases(t *testing.T, path string) []suiteCase {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var suite struct {
		Cases []suiteCase `json:"cases"`
	}
	if err := json.Unmarshal(raw, &suite); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return suite.Cases
}

// caseKey is a case's file name up to its number ("meshservice-002").
func caseKey(file string) string {
	parts := strings.SplitN(file, "-", 3)
	if len(parts) < 2 {
		return file
	}
	return parts[0] + "-" + parts[1]
}

// rewriteResourcePath applies the resource suite README's rewrites: Kuma's `name` is
// the object's name; a Mesh's paths are relative to spec (Kuma's Mesh webhook prefixes
// them with spec), its backends' conf is written `config` in some paths, and its
// certificate rotation path names no backend.
func rewriteResourcePath(kind, p string) string {
	if p == "name" {
		return "metadata.name"
	}
	switch kind {
	case "MeshGateway", "MeshGatewayRoute", "Dataplane", "MeshGatewayInstance":
		return rewriteProtoPath(kind, "spec."+p)
	}
	if kind != string(api.RefMesh) {
		return p
	}
	p = "spec." + p
	if p == "spec.mtls.dpcert.rotation.expiration" {
		return "spec.mtls.backends"
	}
	return regexp.MustCompile(`^(spec\.(logging|tracing)\.backends\[\d+\])\.config\b`).ReplaceAllString(p, "$1.conf")
}
