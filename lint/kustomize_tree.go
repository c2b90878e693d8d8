package lint

import (
	"path/filepath"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// recordingFS is the on-disk file system kustomize reads through, with two
// additions: it serves the root kustomization file with the content meshguard
// prepared (see withOriginAnnotations) and it records every file read, so the
// files a build consumed are known.
type recordingFS struct {
	filesys.FileSystem
	kustomization string // cleaned absolute path, symlinks resolved
	content       []byte

	mu        sync.Mutex
	reads     map[string]bool
	abandoned bool // the build timed out; a late read must not touch reads
}

func newRecordingFS(kfile string, content []byte, reads map[string]bool) (*recordingFS, error) {
	abs, err := canonical(kfile)
	if err != nil {
		return nil, err
	}
	return &recordingFS{FileSystem: filesys.MakeFsOnDisk(), kustomization: abs, content: content, reads: reads}, nil
}

// ReadFile reads a file from disk, or the prepared root kustomization.
func (f *recordingFS) ReadFile(path string) ([]byte, error) {
	abs, err := canonical(path)
	if err == nil && abs == f.kustomization {
		f.record(abs)
		return f.content, nil
	}
	data, readErr := f.FileSystem.ReadFile(path)
	if readErr == nil && err == nil {
		f.record(abs)
	}
	return data, readErr
}

func (f *recordingFS) record(abs string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.abandoned {
		f.reads[abs] = true
	}
}

// abandon stops recording: the caller owns reads again after a timeout.
func (f *recordingFS) abandon() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.abandoned = true
}

// canonical is the absolute path with symlinks resolved, the form kustomize's
// loader and the directory walk can both be compared in.
func canonical(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	return filepath.Clean(abs), nil
}

// kustomizeTreeUnits loads a directory with kustomize rendering on. A directory
// holding a kustomization file is a kustomization root; it owns every file
// below it except those under a deeper root. Each root is built once and its
// rendered objects are linted; the files roots own are inputs, not manifests,
// and are not linted as they are. A file owned by a root that no build in the
// tree read is reported as skipped. Files outside every root are linted as
// before. A root whose kustomization is a Component is not built on its own.
func (r *renderer) treeUnits(root string) []unit {
	files := walkDir(root)
	roots := map[string]bool{}
	for _, f := range files {
		if f.err == nil && isKustomizationFile(filepath.Base(f.path)) {
			roots[filepath.Dir(f.path)] = true
		}
	}
	if len(roots) == 0 {
		var out []unit
		for _, f := range files {
			out = append(out, walkedUnits(f)...)
		}
		return out
	}
	// Build every root first: a file one root owns may be read by another
	// root's build (an overlay above it), and then it is used, not skipped.
	builds := map[string]*build{}
	reads := map[string]bool{}
	failed := false
	var order []*build
	for _, f := range files {
		dir := filepath.Dir(f.path)
		if f.err != nil || !roots[dir] || builds[dir] != nil || !isKustomizationFile(filepath.Base(f.path)) {
			continue
		}
		b := r.renderDir(dir)
		builds[dir] = b
		order = append(order, b)
		failed = failed || b.failed
		for p := range b.reads {
			reads[p] = true
		}
	}
	var out []unit
	for _, b := range order {
		out = append(out, b.unit())
	}
	for _, f := range files {
		owner := ownerRoot(filepath.Dir(f.path), filepath.Clean(root), roots)
		switch {
		case owner == "":
			out = append(out, walkedUnits(f)...)
		case f.err != nil:
			out = append(out, unit{file: f.path, err: f.err})
		case isKustomizationFile(filepath.Base(f.path)) && filepath.Dir(f.path) == owner:
			// The kustomization file is linted through its build.
		case builds[owner].component || failed:
			// A Component's files are covered by its note; after a failed build
			// the reads are incomplete, so "unused" could be wrong.
		case !wasRead(f.path, reads):
			out = append(out, unit{file: f.path, done: true, docs: []Document{{File: f.path,
				skip: "in kustomization directory " + owner + " but no kustomization build uses it"}}})
		}
	}
	return out
}

// ownerRoot is the deepest kustomization root at or above dir, not above top.
func ownerRoot(dir, top string, roots map[string]bool) string {
	for {
		if roots[dir] {
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
