package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gatedChart is a chart that renders its policy only where the Kuma CRDs
// are installed, as published charts do, named after the release and with
// a value that --set and --set-string change.
func gatedChart(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: gated\nversion: 0.1.0\n",
		"values.yaml": "idle: 10s\n",
		"templates/timeout.yaml": `{{- if .Capabilities.APIVersions.Has "kuma.io/v1alpha1" }}
apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: {{ .Release.Name }}-timeout
  namespace: kuma-system
  annotations:
    kube: {{ .Capabilities.KubeVersion.Version | quote }}
    idle-kind: {{ kindOf .Values.idle }}
spec:
  targetRef:
    kind: Mesh
  to:
  - targetRef:
      kind: Mesh
    default:
      idleTimeout: {{ .Values.idle }}
{{- end }}
`,
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRenderFlags: helm template's flags reach the render through lint and
// default, and bad values are usage errors.
func TestRenderFlags(t *testing.T) {
	chart := gatedChart(t)
	tests := []struct {
		name    string
		args    []string
		code    int
		want    []string // substrings of stdout
		wantErr string   // substring of stderr
	}{
		{"lint: the mesh API versions are there by default", []string{"lint", chart}, exitOK, []string{"1 document, 0 errors"}, ""},
		{"lint --api-versions replaces them: nothing rendered", []string{"lint", "--api-versions", "example.com/v1", chart}, exitOK, []string{"0 documents"}, ""},
		{"lint --set makes the policy invalid", []string{"lint", "--set", "idle=5", chart}, exitFindings, []string{"templates/timeout.yaml", "idleTimeout"}, ""},
		{"default: release name, kube version, --set-string", []string{"default", "--release-name", "shop", "--kube-version", "v1.31.0", "--set-string", "idle=7s", chart}, exitOK,
			[]string{"name: shop-timeout", "kube: v1.31.0", "idle-kind: string", "idleTimeout: 7s"}, ""},
		// Helm's parser lives in meshguard-render: the render that uses the value reports it.
		{"bad --set is an error on the chart", []string{"lint", "--set", "a[=x", chart}, exitUsage, []string{"Chart.yaml:1", "--set a[=x"}, ""},
		{"bad --load-restrictor is a usage error", []string{"lint", "--load-restrictor", "Open", chart}, exitUsage, nil, "--load-restrictor must be"},
		{"bad --kube-version is a usage error", []string{"lint", "--kube-version", "latest", chart}, exitUsage, nil, "--kube-version"},
		{"bad --render-max-bytes is a usage error", []string{"lint", "--render-max-bytes", "lots", chart}, exitUsage, nil, "--render-max-bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := cli(t, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout %s\nstderr %s", code, tt.code, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			if !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("stderr %q lacks %q", errOut, tt.wantErr)
			}
		})
	}
}

// TestBinaryBoundsHelmRender runs the built meshguard on a chart whose
// template allocates 2 GB: its renderer (meshguard-render, beside it) stops at
// --render-max-memory, the chart is an input error (exit 2) and the policy
// next to it is still linted.
func TestBinaryBoundsHelmRender(t *testing.T) {
	if testing.Short() {
		t.Skip("builds meshguard")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	for name, content := range map[string]string{
		"bomb/Chart.yaml":       "apiVersion: v2\nname: bomb\nversion: 0.1.0\n",
		"bomb/templates/x.yaml": "data: {{ repeat 2000000000 \"x\" }}\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(t, filepath.Join(repoRoot, "examples/invalid/wrong-type.yaml"), filepath.Join(dir, "bad.yaml"))
	out, code := sh(t, dir, nil, filepath.Join(bin, "meshguard"), "lint", "--render-max-memory", "256Mi", "--render-timeout", "20s", ".")
	if code != exitUsage {
		t.Errorf("exit %d, want %d\n%s", code, exitUsage, out)
	}
	for _, want := range []string{"bomb/Chart.yaml:1: error MG000", "--render-max-memory", "bad.yaml", "MG002"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
