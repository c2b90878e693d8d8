package lint

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

// kumaManifests is a corpus of real, valid Kuma 2.14 manifests from Kuma's tests and
// documentation (see its README): every one is accepted by Kuma 2.14's CRDs and by Kuma.
const kumaManifests = "../validate/testdata/conformance/kuma-manifests-2.14"

// kumaKindCount is the number of kinds Kuma 2.14 defines (its CRDs): the corpus has
// manifests of each.
const kumaKindCount = 31

// TestKumaManifests lints every manifest of the corpus on its own, as
// `meshguard lint --system-namespace kuma-system [flags] FILE` does with the flags of
// its `# meshguard-flags:` header, and requires no error finding: these are manifests
// Kuma accepts. An error that stays must be listed, with the reason, between the
// kuma-manifests markers of docs/conformance.md; the test fails when the list and the
// findings disagree.
func TestKumaManifests(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(kumaManifests, "*.yaml"))
	if len(files) < 200 {
		t.Fatalf("only %d manifests under %s", len(files), kumaManifests)
	}
	reg := api.DefaultRegistry()
	base := api.DefaultSettings()
	base.SystemNamespace = "kuma-system"
	if err := schema.LoadInto(&base); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{} // "file: CODE field" → message
	kinds := map[string]int{}
	for _, f := range files {
		s := base
		kind, err := manifestHeader(f, &s)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		kinds[kind]++
		manifestErrors(got, f, s, reg)
	}
	t.Logf("%d manifests of %d kinds: %v", len(files), len(kinds), kinds)
	if len(kinds) != kumaKindCount {
		t.Errorf("the corpus has manifests of %d kinds, Kuma 2.14 has %d", len(kinds), kumaKindCount)
	}
	holdListed(t, manifestRows(got), markedManifestRows(t, conformanceDoc, "kuma-manifests"), "errors on manifests Kuma accepts", "docs/conformance.md")
}

// manifestErrors lints one corpus file on its own with s, as `meshguard lint FILE`
// does, and adds its errors (and MG000) to got: "file: CODE field" → message.
func manifestErrors(got map[string]string, file string, s api.Settings, reg *api.Registry) {
	fs, _, _ := Run([]string{file}, nil, LoadOptions{}, Options{Settings: s, Namespace: "default", Registry: reg}, nil)
	for _, x := range fs {
		if x.Severity == "error" || x.Code == "MG000" {
			got[fmt.Sprintf("%s: %s %s", filepath.Base(file), x.Code, x.Field)] = x.Message
		}
	}
}

// manifestRows turns manifestErrors' findings into the rows a docs table could add.
func manifestRows(got map[string]string) map[string]string {
	rows := make(map[string]string, len(got))
	for k, msg := range got {
		file, rest, _ := strings.Cut(k, ": ")
		rows[k] = fmt.Sprintf("| %s | %s | (reason; meshguard says: %s) |", file, rest, msg)
	}
	return rows
}

// manifestHeader reads a corpus file's kind and applies its `# meshguard-flags:` header
// (--mode M, --zone Z) to s.
func manifestHeader(path string, s *api.Settings) (kind string, err error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		line := sc.Text()
		if k, ok := strings.CutPrefix(line, "kind: "); ok {
			kind = k
		}
		flags, ok := strings.CutPrefix(line, "# meshguard-flags:")
		if !ok {
			continue
		}
		f := strings.Fields(flags)
		for i := 0; i+1 < len(f); i += 2 {
			switch f[i] {
			case "--mode":
				s.Mode = api.Mode(f[i+1])
			case "--zone":
				s.Zone = f[i+1]
			default:
				return "", fmt.Errorf("unknown flag %q in the meshguard-flags header", f[i])
			}
		}
	}
	if kind == "" {
		return "", fmt.Errorf("no top-level kind")
	}
	return kind, s.Check()
}
