package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// rendererCases is a tree with a chart, a kustomization and a plain file, to
// show which of them need the renderer.
func rendererCases(t *testing.T) (root string) {
	t.Helper()
	root = t.TempDir()
	write(t, root, "chart/Chart.yaml", "apiVersion: v2\nname: app\nversion: 0.1.0\n")
	write(t, root, "chart/templates/cm.yaml", fmt.Sprintf(cmDoc, "charted"))
	write(t, root, "kust/kustomization.yaml", "resources: [cm.yaml]\n")
	write(t, root, "kust/cm.yaml", fmt.Sprintf(cmDoc, "kustomized"))
	write(t, root, "plain/cm.yaml", fmt.Sprintf(cmDoc, "plain"))
	return root
}

// TestRendererMissing: without meshguard-render, every chart and every
// kustomization (both render in it) is an input error on the file rendered
// that says how to install the renderer of this meshguard's version, and
// plain YAML is linted as ever.
func TestRendererMissing(t *testing.T) {
	root := rendererCases(t)
	t.Setenv(RendererEnv, "")
	t.Setenv("PATH", t.TempDir())
	got := LoadAll([]string{root}, nil, LoadOptions{Helm: true, Kustomize: true, Render: RenderOptions{Version: "v9.9.9"}})
	errs := errorsOf(t, got, "")
	hint := "go install github.com/meshguard/meshguard/cmd/meshguard-render@v9.9.9"
	for _, file := range []string{"chart/Chart.yaml", "kust/kustomization.yaml"} {
		e := errs[filepath.Join(root, file)]
		if !strings.Contains(e, "meshguard-render is neither next to meshguard nor on $PATH") || !strings.Contains(e, hint) {
			t.Errorf("%s: error %q, want the missing renderer and %q", file, e, hint)
		}
	}
	if len(errs) != 2 {
		t.Errorf("errors %v, want the chart's and the kustomization's only", errs)
	}
	plain := 0
	for _, d := range got.Docs {
		if d.Object != nil && d.Object.GetName() == "plain" {
			plain++
		}
	}
	if plain != 1 {
		t.Errorf("plain ConfigMap loaded %d times, want 1", plain)
	}
}

// TestRendererEnvMissing: a $MESHGUARD_RENDERER that names no file is said so.
func TestRendererEnvMissing(t *testing.T) {
	root := rendererCases(t)
	t.Setenv(RendererEnv, filepath.Join(t.TempDir(), "nope"))
	got := LoadAll([]string{filepath.Join(root, "chart")}, nil, LoadOptions{Helm: true})
	e := errorsOf(t, got, "")[filepath.Join(root, "chart/Chart.yaml")]
	if !strings.Contains(e, "$"+RendererEnv+"=") || !strings.Contains(e, "@latest") {
		t.Errorf("error %q, want it to name $%s and the install line", e, RendererEnv)
	}
}

// TestRendererProtocolMismatch: a renderer of another release (another
// protocol version) is refused with the install hint, not misread.
func TestRendererProtocolMismatch(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake renderer is a shell script")
	}
	root := rendererCases(t)
	fake := filepath.Join(t.TempDir(), "meshguard-render")
	write(t, filepath.Dir(fake), "meshguard-render", "#!/bin/sh\ncat >/dev/null\necho '{\"protocol\":99,\"helm\":{\"chart\":\"app\"}}'\n")
	if err := os.Chmod(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	got := LoadAll([]string{root}, nil, LoadOptions{Helm: true, Kustomize: true, Render: RenderOptions{Renderer: fake, Version: "v1.2.3"}})
	errs := errorsOf(t, got, "")
	for _, file := range []string{"chart/Chart.yaml", "kust/kustomization.yaml"} {
		e := errs[filepath.Join(root, file)]
		if !strings.Contains(e, "speaks render protocol 99, this meshguard 1") || !strings.Contains(e, "cmd/meshguard-render@v1.2.3") {
			t.Errorf("%s: error %q, want the protocol mismatch and the install line", file, e)
		}
	}
}
