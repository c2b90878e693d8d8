package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// refsDir holds policies with dangling references and, in inventory/, the rendered
// chart they name (testdata/references).
const refsDir = "testdata/references"

// TestLintInventoryGolden lints the policies against the rendered chart: every
// reference family that resolves to nothing is reported once, with its code.
func TestLintInventoryGolden(t *testing.T) {
	out, errOut, code := cli(t, "", "lint", "--color", "never", "--inventory", refsDir+"/inventory", refsDir+"/policies")
	if code != exitOK {
		t.Fatalf("exit %d, want %d (references are warnings)\n%s%s", code, exitOK, out, errOut)
	}
	golden(t, "references.golden.txt", out)
}

// refCodes are the MG4xx codes of a JSON report, in order.
func refCodes(r jsonReport) []string {
	var out []string
	for _, f := range r.Findings {
		if strings.HasPrefix(f.Code, "MG4") {
			out = append(out, f.Code+" "+f.Name+" "+f.Field)
		}
	}
	return out
}

// TestLintInventoryScopes: without --inventory only what the linted files can
// answer is judged (the Server and the default mesh's typo); --no-inventory reports
// no reference at all; the two flags exclude each other; a broken inventory is a
// usage error, not an empty inventory.
func TestLintInventoryScopes(t *testing.T) {
	rep, _ := lintJSON(t, "", refsDir+"/policies")
	want := []string{"MG405 timeouts metadata.labels[kuma.io/mesh]", "MG420 admin-authz spec.targetRef"}
	if got := refCodes(rep); !slices.Equal(got, want) {
		t.Errorf("without --inventory: %q, want %q", got, want)
	}
	rep, _ = lintJSON(t, "", "--no-inventory", refsDir+"/policies")
	if got := refCodes(rep); len(got) != 0 {
		t.Errorf("--no-inventory still reports %q", got)
	}
	if _, errOut, code := cli(t, "", "lint", "--no-inventory", "--inventory", refsDir+"/inventory", refsDir+"/policies"); code != exitUsage || !strings.Contains(errOut, "exclude each other") {
		t.Errorf("--no-inventory with --inventory: exit %d, %s", code, errOut)
	}
	bad := filepath.Join(t.TempDir(), "inv.yaml")
	if err := os.WriteFile(bad, []byte("kind: Service\nmetadata: [unclosed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := cli(t, "", "lint", "--inventory", bad, refsDir+"/policies"); code != exitUsage || !strings.Contains(errOut, "--inventory: "+bad) {
		t.Errorf("broken inventory: exit %d, %s", code, errOut)
	}
}
