package live

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestDocumentPlace(t *testing.T) {
	for _, tc := range []struct {
		ns, kind, name, want string
	}{
		{"payments", "MeshTimeout", "t", "cluster:payments/MeshTimeout/t"},
		{"", "Mesh", "default", "cluster:Mesh/default"},
	} {
		u := &unstructured.Unstructured{Object: map[string]any{}}
		u.SetKind(tc.kind)
		u.SetNamespace(tc.ns)
		u.SetName(tc.name)
		d := Document(u, "")
		if d.File != tc.want || d.Line != 1 || d.Object != u {
			t.Errorf("Document(%s/%s/%s) = %q line %d", tc.ns, tc.kind, tc.name, d.File, d.Line)
		}
	}
}

const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: a
  cluster: {server: "https://127.0.0.1:6443"}
- name: b
  cluster: {server: "https://127.0.0.2:6443"}
users:
- name: u
  user: {token: t}
contexts:
- name: ctx-a
  context: {cluster: a, user: u}
- name: ctx-b
  context: {cluster: b, user: u}
current-context: ctx-a
`

func TestConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", path)
	for _, tc := range []struct {
		file, context, host string
	}{
		{"", "", "https://127.0.0.1:6443"},
		{"", "ctx-b", "https://127.0.0.2:6443"},
		{path, "ctx-b", "https://127.0.0.2:6443"},
	} {
		cfg, err := Config(tc.file, tc.context)
		if err != nil {
			t.Fatalf("Config(%q, %q): %v", tc.file, tc.context, err)
		}
		if cfg.Host != tc.host {
			t.Errorf("Config(%q, %q).Host = %q, want %q", tc.file, tc.context, cfg.Host, tc.host)
		}
	}
	if _, err := Config(filepath.Join(t.TempDir(), "missing"), ""); err == nil {
		t.Error("a kubeconfig that does not exist is not an error")
	}
	if _, err := Config("", "nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown context: %v", err)
	}
}

// TestConfigWithoutKubeconfig checks the message when no kubeconfig is found
// anywhere: it says how to give one, not client-go's advice to set
// KUBERNETES_MASTER (a variable client-go no longer reads for this).
func TestConfigWithoutKubeconfig(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBECONFIG", "")
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	_, err := Config("", "")
	if err == nil {
		t.Fatal("Config found a kubeconfig in an empty HOME")
	}
	for _, want := range []string{"no kubeconfig found", "--kubeconfig", "KUBECONFIG"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "KUBERNETES_MASTER") {
		t.Errorf("error %q repeats client-go's KUBERNETES_MASTER advice", err)
	}
}

// TestImageTag: the tag of an image reference, with a registry port, a digest or
// no tag at all.
func TestImageTag(t *testing.T) {
	for image, want := range map[string]string{
		"docker.io/kumahq/kuma-cp:2.13.10":                "2.13.10",
		"localhost:5000/kuma-cp:2.14.3@sha256:0123abcdef": "2.14.3",
		"cr.l5d.io/linkerd/controller:edge-26.8.3":        "edge-26.8.3",
		"localhost:5000/kuma-cp":                          "",
		"kuma-cp":                                         "",
	} {
		if got := imageTag(image); got != want {
			t.Errorf("imageTag(%q) = %q, want %q", image, got, want)
		}
	}
}
