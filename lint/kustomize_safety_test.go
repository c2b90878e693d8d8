package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKustomizeNoNetwork: remote resources, generator files and git bases are
// input errors naming --allow-remote, and no request reaches the server;
// with --allow-remote the resource is fetched as kustomize fetches it.
func TestKustomizeNoNetwork(t *testing.T) {
	srv, hits := countingServer(t)
	tests := []struct {
		name, kustomization string
	}{
		{"http resource", "resources:\n- " + srv.URL + "/cm.yaml\n"},
		{"git resource", "resources:\n- git::" + srv.URL + "/org/repo.git//base?ref=main\n"},
		{"github shorthand", "resources:\n- github.com/org/repo/base?ref=v1\n"},
		{"configMapGenerator file URL copied by a replacement", `configMapGenerator:
- name: leak
  files:
  - token=` + srv.URL + `/token
resources:
- cm.yaml
replacements:
- source: {kind: ConfigMap, name: leak, fieldPath: data.token}
  targets:
  - select: {kind: ConfigMap, name: local}
    fieldPaths: [data.copy]
`},
		{"remote patch", "resources:\n- cm.yaml\npatches:\n- path: " + srv.URL + "/patch.yaml\n"},
		{"remote component", "components:\n- " + srv.URL + "/comp\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "kustomization.yaml", tt.kustomization)
			write(t, dir, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local\ndata:\n  copy: x\n")
			got := LoadAll([]string{dir}, nil, LoadOptions{Kustomize: true})
			e := errorsOf(t, got, "FETCHED_SECRET")[filepath.Join(dir, "kustomization.yaml")]
			if !strings.Contains(e, "--allow-remote") {
				t.Errorf("error %q, want one naming --allow-remote", e)
			}
			if n := hits.Load(); n != 0 {
				t.Errorf("%d requests reached the server", n)
			}
		})
	}
	t.Run("--allow-remote fetches", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, "kustomization.yaml", "resources:\n- "+srv.URL+"/cm.yaml\n")
		got := LoadAll([]string{dir}, nil, LoadOptions{Kustomize: true, Render: RenderOptions{AllowRemote: true}})
		if errs := errorsOf(t, got, ""); len(errs) != 0 || len(got.Docs) != 1 || got.Docs[0].Object.GetName() != "fetched" {
			t.Errorf("errors %v, %d documents; want the fetched ConfigMap", errs, len(got.Docs))
		}
		if hits.Load() == 0 {
			t.Error("no request reached the server")
		}
		hits.Store(0)
	})
}

// TestKustomizeSymlinkOut: a symlink in a kustomization that leads outside
// the linted paths is refused, naming the link, with either load restrictor,
// and nothing of its target is printed.
func TestKustomizeSymlinkOut(t *testing.T) {
	outside := t.TempDir()
	write(t, outside, "secret.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: leak\ndata:\n  t: GITHUB_TOKEN=ghp_secret123\n")
	for _, lr := range []string{LoadRestrictionsRootOnly, LoadRestrictionsNone} {
		t.Run(lr, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "kustomization.yaml", "resources:\n- link.yaml\n")
			if err := os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(dir, "link.yaml")); err != nil {
				t.Fatal(err)
			}
			got := LoadAll([]string{dir}, nil, LoadOptions{Kustomize: true, Render: RenderOptions{LoadRestrictor: lr}})
			e := errorsOf(t, got, "ghp_secret123")[filepath.Join(dir, "kustomization.yaml")]
			if !strings.Contains(e, "link.yaml") {
				t.Errorf("error %q, want one naming the link", e)
			}
		})
	}
}

// TestKustomizeLoadRestrictor: --load-restrictor LoadRestrictionsNone lets a
// kustomization read a file above its root, as kustomize build does with it.
func TestKustomizeLoadRestrictor(t *testing.T) {
	root := t.TempDir()
	write(t, root, "common/cm.yaml", fmt.Sprintf(cmDoc, "shared"))
	write(t, root, "app/kustomization.yaml", "resources:\n- ../common/cm.yaml\n")
	app := filepath.Join(root, "app")
	got := LoadAll([]string{app}, nil, LoadOptions{Kustomize: true})
	if e := errorsOf(t, got, "")[filepath.Join(app, "kustomization.yaml")]; !strings.Contains(e, "is not in or below") {
		t.Errorf("root only: error %q, want kustomize's refusal", e)
	}
	got = LoadAll([]string{app}, nil, LoadOptions{Kustomize: true, Render: RenderOptions{LoadRestrictor: LoadRestrictionsNone}})
	if errs := errorsOf(t, got, ""); len(errs) != 0 || len(got.Docs) != 1 {
		t.Errorf("none: errors %v, %d documents; want the shared ConfigMap", errs, len(got.Docs))
	}
}

// TestKustomizeFIFORefused: a FIFO listed as a resource is an input error,
// not a hang.
func TestKustomizeFIFORefused(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "kustomization.yaml", "resources:\n- pipe.yaml\n")
	if err := mkfifo(filepath.Join(dir, "pipe.yaml")); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan Loaded, 1)
	go func() { done <- LoadAll([]string{dir}, nil, LoadOptions{Kustomize: true}) }()
	select {
	case got := <-done:
		if e := errorsOf(t, got, "")[filepath.Join(dir, "kustomization.yaml")]; !strings.Contains(e, "not a regular file") {
			t.Errorf("error %q, want it to say the FIFO is not a regular file", e)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("lint hangs on a FIFO in a kustomization")
	}
}
