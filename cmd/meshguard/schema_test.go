package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// kubeconformVersion is the kubeconform the test runs (go install, from the module
// cache when it is there).
const kubeconformVersion = "v0.8.0"

// kubeconform returns a kubeconform binary: the one on PATH, or one go-installed into
// a temporary directory from the local module cache without the network. It skips
// the test, saying how to install it, when neither works.
func kubeconform(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("kubeconform"); err == nil {
		return p
	}
	dir := t.TempDir()
	modcache, _ := sh(t, ".", nil, "go", "env", "GOMODCACHE")
	out, code := sh(t, dir, []string{"GOBIN=" + dir, "GOSUMDB=off", "GOFLAGS=-mod=mod",
		"GOPROXY=file://" + filepath.ToSlash(filepath.Join(strings.TrimSpace(modcache), "cache", "download"))},
		"go", "install", "github.com/yannh/kubeconform/cmd/kubeconform@"+kubeconformVersion)
	if code != 0 {
		t.Skipf("kubeconform is not on PATH nor in the module cache, so this test cannot run "+
			"(go install github.com/yannh/kubeconform/cmd/kubeconform@%s):\n%s", kubeconformVersion, out)
	}
	return filepath.Join(dir, "kubeconform")
}

// TestSchemaCommandWithKubeconform writes the schemas with `meshguard schema` and runs
// kubeconform with them in the CRDs-catalog layout: the valid examples as the
// mutating webhook stores them pass, a policy with a wrong type fails.
func TestSchemaCommandWithKubeconform(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := runCapture("meshguard", "schema", "-d", dir)
	if code != exitOK || !strings.Contains(errs, "JSON Schemas") {
		t.Fatalf("schema: exit %d, %s", code, errs)
	}
	for _, f := range []string{"kuma.io/meshtimeout_v1alpha1.json", "kuma.io/meshtrafficpermission_v1alpha1.json", "policy.linkerd.io/server_v1beta3.json",
		"gateway.networking.k8s.io/tlsroute_v1.json"} { // the default Linkerd release's Gateway API v1.5.1
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("schema wrote no %s: %v", f, err)
		}
	}
	if code, _, _ := runCapture("meshguard", "schema", "-d", dir, "--kuma-version", "0.1"); code != exitUsage {
		t.Errorf("schema --kuma-version 0.1: exit %d, want %d", code, exitUsage)
	}
	if testing.Short() {
		return
	}
	kc := kubeconform(t)
	loc := filepath.Join(dir, "{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json")
	for _, tc := range []struct {
		input string
		want  int
	}{
		{filepath.Join(repoRoot, "examples/valid"), 0},
		{filepath.Join(repoRoot, "examples/linkerd/valid"), 0},
		{filepath.Join(repoRoot, "examples/invalid/wrong-type.yaml"), 1},
	} {
		_, stored, _ := runCapture("meshguard", "default", tc.input)
		f := filepath.Join(t.TempDir(), "stored.yaml")
		if err := os.WriteFile(f, []byte(stored), 0o644); err != nil {
			t.Fatal(err)
		}
		// Deployments beside Linkerd's policies have no schema here: skipped.
		out, code := sh(t, ".", nil, kc, "-strict", "-summary", "-ignore-missing-schemas", "-schema-location", loc, f)
		if code != tc.want || !strings.Contains(out, "Summary:") || strings.Contains(out, "Valid: 0,") && tc.want == 0 {
			t.Errorf("kubeconform on %s: exit %d, want %d\n%s", tc.input, code, tc.want, out)
		}
	}
}
