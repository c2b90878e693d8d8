package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
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
	write(t, filepath.Dir(fake), "meshguard-render", "#!/bin/sh\nhead -n 1 >/dev/null\necho '{\"protocol\":99,\"helm\":{\"chart\":\"app\"}}'\n")
	if err := os.Chmod(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	got := LoadAll([]string{root}, nil, LoadOptions{Helm: true, Kustomize: true, Render: RenderOptions{Renderer: fake, Version: "v1.2.3"}})
	errs := errorsOf(t, got, "")
	for _, file := range []string{"chart/Chart.yaml", "kust/kustomization.yaml"} {
		e := errs[filepath.Join(root, file)]
		if !strings.Contains(e, "speaks render protocol 99, this meshguard 2") || !strings.Contains(e, "cmd/meshguard-render@v1.2.3") {
			t.Errorf("%s: error %q, want the protocol mismatch and the install line", file, e)
		}
	}
}

// TestOneRendererPerRun: the renders of one run share one renderer process
// (three kustomizations and a chart, one start), and a renderer killed for its
// deadline is replaced for the renders after it (a second start), which still
// succeed.
func TestOneRendererPerRun(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the wrapper is a shell script")
	}
	starts := filepath.Join(t.TempDir(), "starts")
	wrapper := filepath.Join(t.TempDir(), "meshguard-render")
	write(t, filepath.Dir(wrapper), "meshguard-render", fmt.Sprintf("#!/bin/sh\necho start >> %q\nexec %q\n", starts, rendererExe(t)))
	if err := os.Chmod(wrapper, 0o755); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		b, _ := os.ReadFile(starts)
		return strings.Count(string(b), "start")
	}
	root := rendererCases(t)
	for _, k := range []string{"k2", "k3"} {
		write(t, root, k+"/kustomization.yaml", "resources: [cm.yaml]\n")
		write(t, root, k+"/cm.yaml", fmt.Sprintf(cmDoc, k))
	}
	got := LoadAll([]string{root}, nil, LoadOptions{Helm: true, Kustomize: true, Render: RenderOptions{Renderer: wrapper}})
	if errs := errorsOf(t, got, ""); len(errs) != 0 {
		t.Fatalf("errors %v", errs)
	}
	if n := count(); n != 1 {
		t.Errorf("renderer started %d times for a chart and three kustomizations, want once", n)
	}

	// A chart whose template never ends is killed at the deadline; the
	// kustomization after it renders in a new process.
	slow := t.TempDir()
	write(t, slow, "a/Chart.yaml", "apiVersion: v2\nname: slow\nversion: 0.1.0\n")
	write(t, slow, "a/templates/cm.yaml", "{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}\n")
	write(t, slow, "b/kustomization.yaml", "resources: [cm.yaml]\n")
	write(t, slow, "b/cm.yaml", fmt.Sprintf(cmDoc, "after"))
	_ = os.Remove(starts)
	got = LoadAll([]string{filepath.Join(slow, "a"), filepath.Join(slow, "b")}, nil,
		LoadOptions{Helm: true, Kustomize: true, RenderTimeout: 2 * time.Second, Render: RenderOptions{Renderer: wrapper, MaxBytes: 1 << 30}})
	errs := errorsOf(t, got, "")
	if e := errs[filepath.Join(slow, "a/Chart.yaml")]; !strings.Contains(e, "timed out") {
		t.Errorf("slow chart: %q, want a timeout", e)
	}
	after := 0
	for _, d := range got.Docs {
		if d.Object != nil && d.Object.GetName() == "after" {
			after++
		}
	}
	if after != 1 || count() != 2 {
		t.Errorf("after the timeout: %d documents of the next kustomization, %d renderer starts; want 1 and 2", after, count())
	}
}
