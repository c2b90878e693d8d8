package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// deprecatedMTP draws only MG190, a warning.
const deprecatedMTP = `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata:
  name: p
  namespace: backend-ns
spec:
  targetRef:
    kind: Mesh
  from:
    - targetRef:
        kind: MeshSubset
        tags:
          kuma.io/service: frontend
      default:
        action: Allow
`

// TestLintIgnoreFile: a suppressed warning does not fail --fail-on warning, is
// counted in text output and listed with --show-suppressed.
func TestLintIgnoreFile(t *testing.T) {
	ignore := filepath.Join(t.TempDir(), "ignore.yaml")
	if err := os.WriteFile(ignore, []byte("suppressions:\n  - {code: MG190, namespace: backend-*, reason: migrating}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := cli(t, deprecatedMTP, "lint", "--fail-on", "warning", "--ignore-file", ignore, "-")
	if code != exitOK || strings.Contains(out, "MG190") || !strings.Contains(out, "0 warnings, 1 suppressed") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	out, _, _ = cli(t, deprecatedMTP, "lint", "--ignore-file", ignore, "--show-suppressed", "-")
	if !strings.Contains(out, "MG190") || !strings.Contains(out, "[suppressed by "+ignore+":2: migrating]") {
		t.Errorf("--show-suppressed:\n%s", out)
	}
	_, errOut, code := cli(t, deprecatedMTP, "lint", "--ignore-file", filepath.Join(t.TempDir(), "missing.yaml"), "-")
	if code != exitUsage || !strings.Contains(errOut, "ignore file") {
		t.Errorf("missing ignore file: exit %d, %s", code, errOut)
	}
}

// TestAuditUsage: bad flags and an unreadable kubeconfig are usage errors
// before anything is read.
func TestAuditUsage(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--report-format", "csv"}, "--report-format must be openreports or wgpolicy"},
		{[]string{"-o", "csv"}, "--output: \"csv\": format must be text, json, yaml, sarif, markdown, github or junit"},
		{[]string{"--fail-on", "info"}, "--fail-on must be error, warning or none"},
		{[]string{"--max-report-results", "0"}, "--max-report-results must be at least 1"},
		{[]string{"--interval", "-1s"}, "--interval must not be negative"},
		{[]string{"--kubeconfig", missing}, "loading the kubeconfig"},
		{[]string{"extra"}, "unknown command"},
	} {
		_, errOut, code := cli(t, "", append([]string{"audit"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("audit %v: exit %d, stderr %q, want %q", tc.args, code, errOut, tc.want)
		}
	}
}
