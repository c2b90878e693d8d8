package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKumaVersion213: --kuma-version 2.13 (Kuma's LTS) is accepted by the settings
// flags of every door, judges against 2.13's CRDs (a MeshOpenTelemetryBackend, a 2.14
// kind, is MG005), and a release meshguard does not embed is a usage error.
func TestKumaVersion213(t *testing.T) {
	dir := t.TempDir()
	otel := filepath.Join(dir, "otel.yaml")
	if err := os.WriteFile(otel, []byte(`apiVersion: kuma.io/v1alpha1
kind: MeshOpenTelemetryBackend
metadata: {name: otel, namespace: kuma-system, labels: {kuma.io/mesh: default}}
spec:
  endpoint: {address: otel-collector.observability, port: 4317}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"lint", "--kuma-version", "2.13", otel}, exitFindings, "MG005"},
		{[]string{"lint", otel}, exitOK, ""},
		{[]string{"lint", "--kuma-version", "2.14", otel}, exitOK, ""},
		{[]string{"default", "--kuma-version", "2.13", otel}, exitFindings, "MG005"},
		{[]string{"lint", "--kuma-version", "2.12", otel}, exitUsage, "2.13, 2.14"},
		{[]string{"default", "--kuma-version", "2.12", otel}, exitUsage, "2.13, 2.14"},
	} {
		code, out, errs := runCapture("meshguard", tc.args...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("meshguard %s: exit %d (want %d), output lacks %q:\n%s%s", strings.Join(tc.args, " "), code, tc.code, tc.want, out, errs)
		}
	}
}
