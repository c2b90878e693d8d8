package lint

import (
	"path/filepath"
)

// treeUnits loads a directory with rendering on. A directory holding a
// kustomization file (or, with Helm on, a Chart.yaml that is not a subchart of
// a chart above it) is a root; it owns every file below it except those under
// a deeper root. Each root is rendered once and its rendered objects are
// linted; the files roots own are inputs, not manifests, and are not linted as
// they are. A file a kustomization root owns that no build in the tree read is
// reported as skipped. Files outside every root are linted as before. A root
// whose kustomization is a Component is not built on its own.
func (r *renderer) treeUnits(top string, fn func(unit)) {
	top = filepath.Clean(top)
	files := r.files.walk(top)
	roots := r.findRoots(files, top)
	if len(roots) == 0 {
		for _, f := range files {
			r.files.walkedUnits(f, fn)
		}
		return
	}
	// Build every root first: a file one root owns may be read by another
	// root's build (an overlay above it), and then it is used, not skipped.
	builds := map[string]*build{}
	reads := map[string]bool{}
	failed := false
	for _, f := range files {
		dir := filepath.Dir(f.path)
		chart, isRoot := roots[dir]
		if f.err != nil || !isRoot || builds[dir] != nil || !isRootFile(filepath.Base(f.path), chart) {
			continue
		}
		var b *build
		if chart {
			b = r.renderChart(dir)
		} else {
			b = r.renderDir(dir)
		}
		builds[dir] = b
		fn(b.unit())
		failed = failed || b.failed
		for p := range b.reads {
			reads[p] = true
		}
	}
	for _, f := range files {
		owner := ownerRoot(filepath.Dir(f.path), top, roots)
		switch {
		case owner == "":
			r.files.walkedUnits(f, fn)
		case f.err != nil && roots[owner]:
			// A chart's render reads every file of the chart and refuses a bad
			// link or special file itself, on Chart.yaml: one error, not two.
		case f.err != nil:
			fn(unit{file: f.path, err: f.err})
		case isRootFile(filepath.Base(f.path), roots[owner]) && filepath.Dir(f.path) == owner:
			// The kustomization file or Chart.yaml is linted through its render.
		case builds[owner].component || builds[owner].ownsAll || failed:
			// A Component's files are covered by its note, a chart reads all
			// its files; after a failed build the reads are incomplete, so
			// "unused" could be wrong.
		case !wasRead(f.path, reads):
			fn(unit{file: f.path, done: true, docs: []Document{{File: f.path,
				skip: "in kustomization directory " + owner + " but no kustomization build uses it"}}})
		}
	}
}

// findRoots maps each root directory under top to whether it is a Helm chart
// (else a kustomization). A chart below another chart is a subchart, rendered
// with its parent, not a root; a directory that is both is a kustomization.
func (r *renderer) findRoots(files []walked, top string) map[string]bool {
	roots := map[string]bool{}
	charts := map[string]bool{}
	for _, f := range files {
		if f.err != nil {
			continue
		}
		dir, name := filepath.Dir(f.path), filepath.Base(f.path)
		switch {
		case r.opts.Kustomize && isKustomizationFile(name):
			roots[dir] = false
		case r.opts.Helm && name == chartFile:
			charts[dir] = true
		}
	}
	for dir := range charts {
		_, kust := roots[dir]
		sub := dir != top && ownerRootOf(filepath.Dir(dir), top, func(d string) bool { return charts[d] }) != ""
		if !kust && !sub {
			roots[dir] = true
		}
	}
	return roots
}

func isRootFile(name string, chart bool) bool {
	if chart {
		return name == chartFile
	}
	return isKustomizationFile(name)
}

// ownerRoot is the deepest root at or above dir, not above top.
func ownerRoot(dir, top string, roots map[string]bool) string {
	return ownerRootOf(dir, top, func(d string) bool {
		_, ok := roots[d]
		return ok
	})
}

func ownerRootOf(dir, top string, isRoot func(string) bool) string {
	for {
		if isRoot(dir) {
			return dir
		}
		if dir == top || dir == filepath.Dir(dir) {
			return ""
		}
		dir = filepath.Dir(dir)
	}
}

func wasRead(path string, reads map[string]bool) bool {
	abs, err := canonical(path)
	return err == nil && reads[abs]
}
