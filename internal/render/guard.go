package render

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Canonical is the absolute path with symlinks resolved, the form kustomize's
// loader, Helm's and the directory walk can all be compared in. A path that
// cannot be resolved (it does not exist yet) is returned cleaned.
func Canonical(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	return filepath.Clean(abs), nil
}

// Within reports whether the canonical path p is one of roots or below one.
func Within(p string, roots []string) bool {
	for _, r := range roots {
		if p == r || strings.HasPrefix(p, strings.TrimSuffix(r, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// ErrLinkOut is the input error for a symlink whose target lies outside what
// is linted. It names the link, never what it points at beyond its path, and
// nothing of the target is read.
func ErrLinkOut(link, target string) error {
	return fmt.Errorf("symlink %s points outside the linted paths (to %s): refused, nothing is read through it; lint the target's directory too if it is meant to be part of the input", link, target)
}

// CheckChartLinks walks a chart directory before Helm loads it (Helm's loader
// follows symlinks and reads every file it finds) and refuses the chart when a
// symlink in it leads outside roots, or when an entry is not a regular file or
// directory (a FIFO would hang the loader, a device would never end). Linked
// directories inside roots are walked too, each once.
func CheckChartLinks(dir string, roots []string) error {
	seen := map[string]bool{}
	var walk func(shown, real string) error
	walk = func(shown, real string) error {
		if seen[real] {
			return nil
		}
		seen[real] = true
		return filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(real, p)
			name := filepath.Join(shown, rel)
			switch {
			case d.Type()&fs.ModeSymlink != 0:
				return checkLink(name, p, roots, walk)
			case d.IsDir() || d.Type().IsRegular():
				return nil
			}
			return fmt.Errorf("%s is not a regular file (%v): refused", name, d.Type())
		})
	}
	real, err := Canonical(dir)
	if err != nil {
		return err
	}
	return walk(dir, real)
}

// checkLink checks one symlink of a chart: its target must exist inside roots
// and be a regular file or a directory (walked in turn).
func checkLink(name, p string, roots []string, walk func(shown, real string) error) error {
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return fmt.Errorf("symlink %s cannot be followed: %v", name, err)
	}
	if !Within(target, roots) {
		return ErrLinkOut(name, target)
	}
	info, err := os.Stat(target)
	switch {
	case err != nil:
		return err
	case info.IsDir():
		return walk(name, target)
	case !info.Mode().IsRegular():
		return fmt.Errorf("symlink %s leads to %s, which is not a regular file: refused", name, target)
	}
	return nil
}

// IsManifest reports whether a file name is one meshguard reads as manifests
// (YAML or JSON): the walk's test, and which rendered templates count.
func IsManifest(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}
