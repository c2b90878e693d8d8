package lint

import (
	"os"
	"path/filepath"
	"strings"
)

// ChangedPaths turns the changed files of a commit (what a pre-commit hook is
// given, one file at a time) into the paths to lint, so that a hook checks
// what reaches a cluster rather than each file alone:
//
//   - a file inside a Helm chart (a template, values.yaml, a subchart's file)
//     stands for the outermost chart around it, which is rendered;
//   - a file inside a kustomization directory (a patch, a resource, the
//     kustomization itself) stands for the nearest kustomization above it;
//   - a file in a hidden directory or with a hidden name
//     (.pre-commit-config.yaml, .github/workflows/ci.yaml) is left out, as
//     a directory walk leaves it out;
//   - a file outside every chart and kustomization that has no manifest
//     extension (_helpers.tpl of a chart Helm is off for) is left out;
//   - every other file stands for itself.
//
// Each path is returned once, in the order first met. Directories are only
// searched up to the current directory for relative paths (pre-commit runs
// in the repository's top level), and up to the first directory holding .git
// for absolute ones.
func ChangedPaths(files []string, o LoadOptions) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		if f == "-" || hidden(f) {
			continue
		}
		p := f
		if root := renderRootOf(f, o); root != "" {
			p = root
		} else if base := filepath.Base(f); !isManifest(base) && !isKustomizationFile(base) {
			continue // a helper template or other file outside any chart
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// hidden reports whether a path has a component starting with a dot (other
// than . and ..).
func hidden(p string) bool {
	for _, c := range strings.Split(filepath.ToSlash(filepath.Clean(p)), "/") {
		if strings.HasPrefix(c, ".") && c != "." && c != ".." {
			return true
		}
	}
	return false
}

// renderRootOf is the chart or kustomization directory a changed file belongs
// to, "" when none: the outermost chart above it, else the nearest
// kustomization.
func renderRootOf(file string, o LoadOptions) string {
	chart, kust := "", ""
	dir := filepath.Dir(file)
	for {
		if o.Helm && isFile(filepath.Join(dir, chartFile)) {
			chart = dir
		}
		if o.Kustomize && kust == "" && kustomizationIn(dir) != "" {
			kust = dir
		}
		if stopAt(dir) {
			break
		}
		dir = filepath.Dir(dir)
	}
	if chart != "" {
		return chart
	}
	return kust
}

// stopAt says where the upward search for a chart or kustomization ends: the
// top of a relative path, the file system root, or a repository's top level.
func stopAt(dir string) bool {
	if dir == "." || dir == filepath.Dir(dir) {
		return true
	}
	git := filepath.Join(dir, ".git")
	return filepath.IsAbs(dir) && (isDir(git) || isFile(git))
}

func isFile(p string) bool {
	info, err := os.Stat(p)
	return err == nil && !info.IsDir()
}

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}
