package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const cmDoc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n"

// errorsOf lists each document's error, and fails the test when any document
// or skip note quotes secret.
func errorsOf(t *testing.T, got Loaded, secret string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, d := range got.Docs {
		if d.Err != nil {
			out[d.File] = d.Err.Error()
		}
		if secret != "" && (d.Err != nil && strings.Contains(d.Err.Error(), secret) || d.Object != nil && strings.Contains(fmt.Sprint(d.Object.Object), secret)) {
			t.Errorf("%s:%d quotes the secret", d.File, d.Line)
		}
	}
	for _, s := range got.Skipped {
		if secret != "" && strings.Contains(s.Reason, secret) {
			t.Errorf("note %s quotes the secret", s.File)
		}
	}
	return out
}

// TestHelmSymlinkOut: a chart's symlink that leads outside the linted paths
// refuses the chart with an error naming the link, and nothing of the
// target is printed; a link that stays inside renders.
func TestHelmSymlinkOut(t *testing.T) {
	outside := t.TempDir()
	secret := "GITHUB_TOKEN=ghp_secret123"
	write(t, outside, "environ", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: leak\ndata:\n  x: "+secret+"\n")
	root := t.TempDir()
	bad := filepath.Join(root, "bad")
	write(t, bad, "Chart.yaml", "apiVersion: v2\nname: bad\nversion: 0.1.0\n")
	link := filepath.Join(bad, "templates", "x.yaml")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "environ"), link); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(root, "good")
	write(t, good, "Chart.yaml", "apiVersion: v2\nname: good\nversion: 0.1.0\n")
	write(t, root, "common/cm.yaml", fmt.Sprintf(cmDoc, "shared"))
	if err := os.MkdirAll(filepath.Join(good, "templates"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../common/cm.yaml", filepath.Join(good, "templates", "cm.yaml")); err != nil {
		t.Fatal(err)
	}
	for _, explicit := range []bool{false, true} {
		t.Run(fmt.Sprintf("explicit=%v", explicit), func(t *testing.T) {
			ro := RenderOptions{}
			if explicit {
				ro.Renderer = rendererExe(t)
			}
			got := LoadAll([]string{root}, nil, LoadOptions{Helm: true, Render: ro})
			errs := errorsOf(t, got, "ghp_secret123")
			want := "symlink " + link + " points outside the linted paths"
			if e := errs[filepath.Join(bad, chartFile)]; !strings.Contains(e, want) {
				t.Errorf("bad chart: error %q, want it to contain %q", e, want)
			}
			rendered := 0
			for _, d := range got.Docs {
				if d.Object != nil && d.Object.GetName() == "shared" {
					rendered++
				}
			}
			// common/cm.yaml is linted twice: as a plain file and through the chart.
			if rendered != 2 || len(errs) != 1 {
				t.Errorf("good chart (link inside the roots): %d objects, errors %v; want 2 objects and only the bad chart's error", rendered, errs)
			}
		})
	}
}

// TestHelmFIFORefused: a FIFO in a chart would hang Helm's loader; it is an
// input error instead.
func TestHelmFIFORefused(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Chart.yaml", "apiVersion: v2\nname: f\nversion: 0.1.0\n")
	if err := os.MkdirAll(filepath.Join(dir, "templates"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(filepath.Join(dir, "templates", "x.yaml")); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan Loaded, 1)
	go func() { done <- LoadAll([]string{dir}, nil, LoadOptions{Helm: true}) }()
	select {
	case got := <-done:
		if e := errorsOf(t, got, "")[filepath.Join(dir, chartFile)]; !strings.Contains(e, "not a regular file") {
			t.Errorf("error %q, want it to say the FIFO is not a regular file", e)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("lint hangs on a FIFO in a chart")
	}
}

// TestHelmBombsBounded: templates that allocate without end are stopped by
// meshguard-render's memory limit, deadline or output cap; each is an input
// error on its chart and the run goes on with the other documents.
func TestHelmBombsBounded(t *testing.T) {
	root := t.TempDir()
	write(t, root, "repeat/Chart.yaml", "apiVersion: v2\nname: repeat\nversion: 0.1.0\n")
	write(t, root, "repeat/templates/x.yaml", "data: {{ repeat 2000000000 \"x\" }}\n")
	write(t, root, "range/Chart.yaml", "apiVersion: v2\nname: range\nversion: 0.1.0\n")
	write(t, root, "range/templates/x.yaml", "{{ range until 1000000 }}\n---\napiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata:\n  name: p{{ . }}\nspec:\n  targetRef:\n    kind: Mesh\n{{ end }}\n")
	write(t, root, "sleep/Chart.yaml", "apiVersion: v2\nname: sleep\nversion: 0.1.0\n")
	write(t, root, "sleep/templates/x.yaml", "{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}\n")
	write(t, root, "plain.yaml", fmt.Sprintf(cmDoc, "plain"))
	start := time.Now()
	got := LoadAll([]string{root}, nil, LoadOptions{Helm: true, RenderTimeout: 4 * time.Second,
		Render: RenderOptions{Renderer: rendererExe(t), MaxMemory: 256 << 20, MaxBytes: 4 << 20}})
	elapsed := time.Since(start)
	errs := errorsOf(t, got, "")
	for name, bound := range map[string]string{"repeat": "--render-max-memory", "range": "", "sleep": "--render-timeout"} {
		e := errs[filepath.Join(root, name, chartFile)]
		ok := strings.Contains(e, bound) && (strings.Contains(e, "--render-max-memory") || strings.Contains(e, "--render-max-bytes") || strings.Contains(e, "--render-timeout"))
		if !ok {
			t.Errorf("%s bomb: error %q, want a render bound %s", name, e, bound)
		}
	}
	plain := false
	for _, d := range got.Docs {
		plain = plain || d.Object != nil && d.Object.GetName() == "plain"
	}
	if !plain {
		t.Error("the plain file next to the bombs was not linted")
	}
	if elapsed > 30*time.Second {
		t.Errorf("three bombs took %v; each should stop at its bound", elapsed)
	}
}

// TestHelmNoNetwork: a values schema that refers to a URL (which Helm's
// schema loader would fetch) or a file is refused without --allow-remote,
// and no request reaches the server; a dependency missing from charts/ is an
// error that says what to do.
func TestHelmNoNetwork(t *testing.T) {
	srv, hits := countingServer(t)
	dir := t.TempDir()
	write(t, dir, "schema/Chart.yaml", "apiVersion: v2\nname: schema\nversion: 0.1.0\n")
	write(t, dir, "schema/values.schema.json", `{"type":"object","properties":{"a":{"$ref":"`+srv.URL+`/s.json"}}}`)
	write(t, dir, "schema/templates/cm.yaml", fmt.Sprintf(cmDoc, "s"))
	write(t, dir, "deps/Chart.yaml", "apiVersion: v2\nname: deps\nversion: 0.1.0\ndependencies:\n- name: redis\n  version: 1.0.0\n  repository: "+srv.URL+"\n")
	write(t, dir, "deps/templates/cm.yaml", fmt.Sprintf(cmDoc, "d"))
	got := LoadAll([]string{dir}, nil, LoadOptions{Helm: true})
	errs := errorsOf(t, got, "")
	if e := errs[filepath.Join(dir, "schema", chartFile)]; !strings.Contains(e, "--allow-remote") {
		t.Errorf("schema with a remote $ref: error %q, want one naming --allow-remote", e)
	}
	if e := errs[filepath.Join(dir, "deps", chartFile)]; !strings.Contains(e, `dependency "redis"`) || !strings.Contains(e, "helm dependency build") {
		t.Errorf("missing dependency: error %q", e)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}
