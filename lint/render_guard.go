package lint

import (
	"os"
	"path/filepath"

	"github.com/meshguard/meshguard/internal/render"
)

// lintRoots are the canonical forms of the paths a run was given: a directory
// as it is, a kustomization file or Chart.yaml as the directory it renders, any
// other file as itself. Symlinks inside a chart or a kustomization may point
// only into these (see render.CheckChartLinks, and the renderer's guard of
// kustomize reads, which gets them in the request).
func lintRoots(paths []string) []string {
	var roots []string
	for _, p := range paths {
		if p == "-" {
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			continue
		}
		if !info.IsDir() && (isKustomizationFile(filepath.Base(p)) || filepath.Base(p) == chartFile) {
			p = filepath.Dir(p)
		}
		if c, err := canonical(p); err == nil {
			roots = append(roots, c)
		}
	}
	return roots
}

// within reports whether the canonical path p is one of roots or below one.
func within(p string, roots []string) bool { return render.Within(p, roots) }

// canonical is the absolute path with symlinks resolved (render.Canonical).
func canonical(path string) (string, error) { return render.Canonical(path) }
