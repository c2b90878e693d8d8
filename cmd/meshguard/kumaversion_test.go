package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKumaVersion213: --kuma-version 2.13 (Kuma's LTS) is accepted by the settings
// flags of the doors, judges against 2.13's CRDs (a MeshOpenTelemetryBackend, a 2.14
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
	mtp := filepath.Join(dir, "mtp.yaml")
	if err := os.WriteFile(mtp, []byte(`apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: allow, namespace: kuma-system, labels: {kuma.io/mesh: default}}
spec:
  targetRef: {kind: Mesh}
  rules:
  - default: {allow: [{spiffeID: {type: Exact, value: "spiffe://default/web"}}]}
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
		{[]string{"preview", "--kuma-version", "2.13", mtp}, exitOK, ""},
		{[]string{"diff", "--kuma-version", "2.13", mtp, mtp}, exitOK, ""},
		// Every door with the settings flags refuses a release it does not embed
		// before doing anything else (serve and audit before reaching for a cluster).
		{[]string{"preview", "--kuma-version", "2.12", mtp}, exitUsage, "--kuma-version must be one of 2.13, 2.14"},
		{[]string{"diff", "--kuma-version", "2.12", mtp, mtp}, exitUsage, "--kuma-version must be one of 2.13, 2.14"},
		{[]string{"check", "--kuma-version", "2.12", "--from", "kuma.io/service=web", "--to", "kuma.io/service=backend", mtp}, exitUsage, "--kuma-version must be one of 2.13, 2.14"},
		{[]string{"audit", "--kuma-version", "2.12", "--kubeconfig", filepath.Join(dir, "none")}, exitUsage, "--kuma-version must be one of 2.13, 2.14"},
		{[]string{"serve", "--kuma-version", "2.12", "--disable-cert-rotation"}, exitUsage, "--kuma-version must be one of 2.13, 2.14"},
	} {
		code, out, errs := runCapture("meshguard", tc.args...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("meshguard %s: exit %d (want %d), output lacks %q:\n%s%s", strings.Join(tc.args, " "), code, tc.code, tc.want, out, errs)
		}
	}
}

// TestSchemaKumaVersion213: `meshguard schema --kuma-version 2.13` writes Kuma 2.13's
// JSON Schemas, without the kinds 2.13 does not have.
func TestSchemaKumaVersion213(t *testing.T) {
	for _, tc := range []struct {
		version string
		otel    bool
	}{{"2.13", false}, {"2.14", true}} {
		dir := t.TempDir()
		if code, _, errs := runCapture("meshguard", "schema", "-d", dir, "--kuma-version", tc.version); code != exitOK {
			t.Fatalf("schema --kuma-version %s: exit %d, %s", tc.version, code, errs)
		}
		if _, err := os.Stat(filepath.Join(dir, "kuma.io", "meshtimeout_v1alpha1.json")); err != nil {
			t.Errorf("%s: %v", tc.version, err)
		}
		_, err := os.Stat(filepath.Join(dir, "kuma.io", "meshopentelemetrybackend_v1alpha1.json"))
		if got := err == nil; got != tc.otel {
			t.Errorf("%s: a MeshOpenTelemetryBackend schema written: %v, want %v", tc.version, got, tc.otel)
		}
	}
}

// TestKumaVersion30Preview: --kuma-version 3.0-preview (Kuma's main branch at the
// pinned commit) is accepted by lint and default, refuses a kind 3.0 removed with
// what to use instead, and a MeshTimeout with `from` only says to write `rules`;
// 2.14 accepts both.
func TestKumaVersion30Preview(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "doc.yaml")
	if err := os.WriteFile(doc, []byte(`apiVersion: kuma.io/v1alpha1
kind: MeshGatewayInstance
metadata: {name: edge, namespace: kuma-system, labels: {kuma.io/mesh: default}}
spec: {replicas: 1, serviceType: LoadBalancer}
---
apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: mt, namespace: kuma-system, labels: {kuma.io/mesh: default}}
spec:
  targetRef: {kind: Mesh}
  from: [{targetRef: {kind: Mesh}, default: {idleTimeout: 1h}}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"lint", "--kuma-version", "3.0-preview", doc}, exitFindings, []string{"MG005", "delegated gateway", "MG001", "write 'rules'"}},
		{[]string{"default", "--kuma-version", "3.0-preview", doc}, exitFindings, []string{"MG005"}},
		{[]string{"lint", "--kuma-version", "2.14", doc}, exitOK, nil},
	} {
		code, out, errs := runCapture("meshguard", tc.args...)
		for _, w := range tc.want {
			if !strings.Contains(out+errs, w) {
				t.Errorf("meshguard %s: output lacks %q:\n%s%s", strings.Join(tc.args, " "), w, out, errs)
			}
		}
		if code != tc.code {
			t.Errorf("meshguard %s: exit %d, want %d:\n%s%s", strings.Join(tc.args, " "), code, tc.code, out, errs)
		}
	}
}
