package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// mgbOTel is a MeshOpenTelemetryBackend: a Kuma 2.14 kind that 2.13 does not serve
// (MG005 under --kuma-version 2.13), so it shows which release a run checks against.
const mgbOTel = `apiVersion: kuma.io/v1alpha1
kind: MeshOpenTelemetryBackend
metadata: {name: otel, namespace: kuma-system, labels: {kuma.io/mesh: default}}
spec:
  endpoint: {address: otel-collector.observability, port: 4317}
`

// configRepo makes a repository (a .git directory) with .meshguard.yaml holding
// config at its root, a nested directory sub/deeper, and the 2.14-only policy in
// it; it returns the root and the nested directory.
func configRepo(t *testing.T, config string) (root, deep string) {
	t.Helper()
	root = t.TempDir()
	deep = filepath.Join(root, "sub", "deeper")
	for _, d := range []string{filepath.Join(root, ".git"), deep} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if config != "" {
		if err := os.WriteFile(filepath.Join(root, ".meshguard.yaml"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(deep, "otel.yaml"), []byte(mgbOTel), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, deep
}

// TestConfigFoundInAParent: lint run two directories below a repository's
// .meshguard.yaml reads it (kuma-version 2.13: the 2.14 kind is MG005); a flag
// overrides it; --no-config ignores it; --config names another; a file above the
// repository root is not read.
func TestConfigFoundInAParent(t *testing.T) {
	root, deep := configRepo(t, "# pinned for CI, pre-commit and editors\nkuma-version: \"2.13\"\nfail-on: warning\n")
	t.Chdir(deep)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"lint", "otel.yaml"}, exitFindings, "MG005"},
		{[]string{"lint", "--kuma-version", "2.14", "otel.yaml"}, exitOK, ""},
		{[]string{"lint", "--no-config", "otel.yaml"}, exitOK, ""},
		{[]string{"lint", "--config", filepath.Join(root, "missing.yaml"), "otel.yaml"}, exitUsage, "missing.yaml: no such file"},
		{[]string{"lint", "--config", "x", "--no-config", "otel.yaml"}, exitUsage, "either --config or --no-config"},
	} {
		code, out, errs := runCapture("meshguard", tc.args...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("%v: exit %d, want %d with %q\n%s%s", tc.args, code, tc.code, tc.want, out, errs)
		}
	}
	other := filepath.Join(t.TempDir(), "other.yaml")
	if err := os.WriteFile(other, []byte("kuma-version: \"2.14\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCapture("meshguard", "lint", "--config", other, "otel.yaml"); code != exitOK {
		t.Errorf("--config %s: exit %d\n%s%s", other, code, out, errs)
	}

	// Above the repository root: not read.
	above, deep2 := configRepo(t, "")
	if err := os.WriteFile(filepath.Join(filepath.Dir(above), ".meshguard.yaml"), []byte("kuma-version: \"2.13\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(deep2)
	if code, out, errs := runCapture("meshguard", "lint", "otel.yaml"); code != exitOK {
		t.Errorf("a .meshguard.yaml above the repository root was read: exit %d\n%s%s", code, out, errs)
	}
}

// TestConfigStrict: an unknown key, a repeated key, a value that is not one and a
// value its flag refuses are errors naming the file and line; an empty file sets
// nothing; the ignore file is read relative to the configuration file.
func TestConfigStrict(t *testing.T) {
	for _, tc := range []struct {
		config, want string
	}{
		{"kuma-version: \"2.13\"\nkuma-verison: \"2.14\"\n", ".meshguard.yaml:2: unknown key \"kuma-verison\"; the keys are "},
		{"mode: zone\nzone: z\nmode: global\n", ".meshguard.yaml:3: mode is already set on line 1"},
		{"mode: {zone: z}\n", ".meshguard.yaml:1: mode: want a value or a list of values"},
		{"- kuma-version\n", ".meshguard.yaml:1: want a mapping of settings"},
		{"kuma-version: \"2.12\"\n", "--kuma-version must be one of 2.13, 2.14"},
		{"fail-on: sometimes\n", "fail-on"},
	} {
		_, deep := configRepo(t, tc.config)
		t.Chdir(deep)
		code, out, errs := runCapture("meshguard", "lint", "otel.yaml")
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, want %d with %q\n%s%s", tc.config, code, exitUsage, tc.want, out, errs)
		}
	}
	root, deep := configRepo(t, "")
	t.Chdir(deep)
	if code, out, errs := runCapture("meshguard", "lint", "otel.yaml"); code != exitOK {
		t.Errorf("no config: exit %d\n%s%s", code, out, errs)
	}
	if err := os.WriteFile(filepath.Join(root, ".meshguard.yml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCapture("meshguard", "lint", "otel.yaml"); code != exitOK {
		t.Errorf("empty .meshguard.yml: exit %d\n%s%s", code, out, errs)
	}
	// The ignore file is named relative to the configuration file, wherever
	// meshguard runs.
	if err := os.WriteFile(filepath.Join(root, ".meshguard.yml"), []byte("ignore-file: ignores/none.yaml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCapture("meshguard", "lint", "otel.yaml")
	if want := filepath.Join(root, "ignores", "none.yaml"); code != exitUsage || !strings.Contains(errs, want) {
		t.Errorf("ignore-file: exit %d, want a usage error naming %s\n%s%s", code, want, out, errs)
	}
}

// TestConfigNamedByVersionAndHelp: meshguard version (text and JSON) and --help say
// which file the commands read here.
func TestConfigNamedByVersionAndHelp(t *testing.T) {
	root, deep := configRepo(t, "kuma-version: \"2.13\"\n")
	t.Chdir(deep)
	want := filepath.Join(root, ".meshguard.yaml")
	if code, out, _ := runCapture("meshguard", "version"); code != exitOK || !strings.Contains(out, "config:        "+want) {
		t.Errorf("version: exit %d, want config %s\n%s", code, want, out)
	}
	code, out, _ := runCapture("meshguard", "version", "-o", "json")
	var v versionInfo
	if err := json.Unmarshal([]byte(out), &v); code != exitOK || err != nil || v.Config != want {
		t.Errorf("version -o json: config %q, want %q (%v)", v.Config, want, err)
	}
	if code, out, _ := runCapture("meshguard", "version", "--no-config"); code != exitOK || !strings.Contains(out, "config:        none (--no-config)") {
		t.Errorf("version --no-config:\n%s", out)
	}
	if code, out, _ := runCapture("meshguard", "lint", "--help"); code != exitOK || !strings.Contains(out, "Settings from "+want) {
		t.Errorf("lint --help does not name %s:\n%s", want, out)
	}
}

// TestSchemaReleases: meshguard schema writes the selected releases' schemas: under
// --kuma-version 2.13 no MeshOpenTelemetryBackend (2.13 has none), under 2.14 one;
// a Linkerd release it does not embed is a usage error.
func TestSchemaReleases(t *testing.T) {
	otel := filepath.Join("kuma.io", "meshopentelemetrybackend_v1alpha1.json")
	for v, want := range map[string]bool{"2.13": false, "2.14": true} {
		dir := t.TempDir()
		code, _, errs := runCapture("meshguard", "schema", "--no-config", "-d", dir, "--kuma-version", v)
		if code != exitOK || !strings.Contains(errs, "of kuma "+v+" and linkerd ") {
			t.Fatalf("schema --kuma-version %s: exit %d, %s", v, code, errs)
		}
		_, err := os.Stat(filepath.Join(dir, otel))
		if got := err == nil; got != want {
			t.Errorf("schema --kuma-version %s: %s written %v, want %v", v, otel, got, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "policy.linkerd.io", "server_v1beta3.json")); err != nil {
			t.Errorf("schema --kuma-version %s: no Linkerd Server schema: %v", v, err)
		}
	}
	if code, _, errs := runCapture("meshguard", "schema", "-d", t.TempDir(), "--linkerd-version", "stable-2.14.10"); code != exitUsage || !strings.Contains(errs, "--linkerd-version must be one of") {
		t.Errorf("schema --linkerd-version stable-2.14.10: exit %d, %s", code, errs)
	}
}

// TestConfigCountsAsGiven: a value set from .meshguard.yaml counts as given (the
// flag is Changed), so detection from a cluster does not override it; a flag of
// the command line is not overwritten by the file.
func TestConfigCountsAsGiven(t *testing.T) {
	root, _ := configRepo(t, "kuma-version: \"2.13\"\nmode: zone\nzone: z1\n")
	cf, err := readConfig(filepath.Join(root, ".meshguard.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var o serveOptions
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	serveFlags(fs, &o)
	if err := fs.Set("mode", "global"); err != nil {
		t.Fatal(err)
	}
	if err := cf.apply(fs); err != nil {
		t.Fatal(err)
	}
	if !fs.Changed("kuma-version") || o.Settings.KumaVersion != "2.13" {
		t.Errorf("kuma-version from the file: changed %v, value %q", fs.Changed("kuma-version"), o.Settings.KumaVersion)
	}
	if o.Settings.Mode != "global" || o.Settings.Zone != "z1" {
		t.Errorf("the command line's --mode global was overwritten, or zone not set: %+v", o.Settings)
	}
	if fs.Changed("linkerd-version") {
		t.Error("linkerd-version is not in the file but counts as given")
	}
}
