package lint

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestChangedPaths: changed files become the charts and kustomizations around
// them, once each; hidden files and stray helpers are left out.
func TestChangedPaths(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "charts/app/Chart.yaml", "apiVersion: v2\nname: app\nversion: 0.1.0\n")
	write(t, dir, "charts/app/templates/t.yaml", "x: 1\n")
	write(t, dir, "charts/app/charts/sub/Chart.yaml", "apiVersion: v2\nname: sub\nversion: 0.1.0\n")
	write(t, dir, "charts/app/charts/sub/templates/s.yaml", "x: 1\n")
	write(t, dir, "deploy/base/kustomization.yaml", "resources: [t.yaml]\n")
	write(t, dir, "deploy/overlays/prod/kustomization.yaml", "resources: [../../base]\n")
	write(t, dir, "deploy/overlays/prod/patches/p.yaml", "x: 1\n")
	t.Chdir(dir)
	tests := []struct {
		name  string
		files []string
		opts  LoadOptions
		want  []string
	}{
		{"template and subchart file: the outer chart once", []string{"charts/app/templates/t.yaml", "charts/app/charts/sub/templates/s.yaml", "charts/app/Chart.yaml"},
			LoadOptions{Helm: true, Kustomize: true}, []string{"charts/app"}},
		{"patch in a subdirectory and the kustomization: the overlay once", []string{"deploy/overlays/prod/patches/p.yaml", "deploy/overlays/prod/kustomization.yaml", "deploy/base/t.yaml"},
			LoadOptions{Helm: true, Kustomize: true}, []string{"deploy/overlays/prod", "deploy/base"}},
		{"hidden files and helpers outside charts are left out", []string{".pre-commit-config.yaml", ".github/workflows/ci.yaml", "tools/_helpers.tpl", "policies/p.yaml"},
			LoadOptions{Helm: true, Kustomize: true}, []string{"policies/p.yaml"}},
		{"rendering off: files stand for themselves", []string{"charts/app/templates/t.yaml", "deploy/overlays/prod/patches/p.yaml"},
			LoadOptions{}, []string{"charts/app/templates/t.yaml", "deploy/overlays/prod/patches/p.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ChangedPaths(tt.files, tt.opts)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestPartialRunKeepsIgnoreEntries: an ignore-file entry that matches nothing
// is stale (MG054) on a full run, not on a partial one (--changed-files).
func TestPartialRunKeepsIgnoreEntries(t *testing.T) {
	for _, partial := range []bool{false, true} {
		t.Run(fmt.Sprint("partial=", partial), func(t *testing.T) {
			o := suppressOptions()
			f, err := ReadIgnoreFile(writeIgnore(t, "suppressions:\n  - {code: MG190, name: elsewhere, reason: migrating}\n"), RuleSeverity, o.Now)
			if err != nil {
				t.Fatal(err)
			}
			o.Ignore, o.Partial = f, partial
			fs, _ := Lint(LoadBytes("x.yaml", []byte(openMTP("kuma-system", "a", ""))), o)
			stale := 0
			for _, f := range fs {
				if f.Code == "MG054" {
					stale++
				}
			}
			if want := map[bool]int{false: 1, true: 0}[partial]; stale != want {
				t.Errorf("%d MG054, want %d: %+v", stale, want, fs)
			}
		})
	}
}
