package child

import (
	"path/filepath"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/meshguard/meshguard/internal/render"
)

// recordingFS is the on-disk file system kustomize reads through, with two
// additions: it serves the root kustomization file with the content meshguard
// prepared (see withOriginAnnotations) and it records every file read, so the
// files a build consumed are known.
type recordingFS struct {
	filesys.FileSystem
	kustomization string // cleaned absolute path, symlinks resolved
	content       []byte

	// roots are the linted paths, canonical; allowRemote is --allow-remote.
	roots       []string
	allowRemote bool

	mu    sync.Mutex
	reads map[string]bool
	// kustomizationDirs are the directories of the kustomizations read so
	// far: symlinks of the build may point into them (see guard).
	kustomizationDirs []string
	// refused is the first read guard or checkKustomization refused;
	// kustomize may swallow the error (a kustomization it cannot read is "not
	// found"), so the build reports it from here.
	refused error
	// inflate renders the helmCharts of a kustomization (--enable-helm), nil
	// when off; virtual holds the rendered charts by absolute path.
	inflate func(dir string, data []byte) ([]byte, map[string][]byte, error)
	virtual map[string][]byte
}

// refuse remembers the first refusal and returns err.
func (f *recordingFS) refuse(err error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.refused == nil {
		f.refused = err
	}
	return err
}

// refusal is the first refusal of the build, nil when there was none.
func (f *recordingFS) refusal() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refused
}

func newRecordingFS(req render.KustomizeRequest, reads map[string]bool) (*recordingFS, error) {
	abs, err := canonical(req.File)
	if err != nil {
		return nil, err
	}
	return &recordingFS{FileSystem: filesys.MakeFsOnDisk(), kustomization: abs, content: req.Content, reads: reads,
		roots: req.Roots, allowRemote: req.AllowRemote}, nil
}

// ReadFile reads a file from disk, or the prepared root kustomization, after
// the checks of guard, and of checkKustomization for kustomization files.
func (f *recordingFS) ReadFile(path string) ([]byte, error) {
	abs, err := canonical(path)
	if err == nil && abs == f.kustomization {
		if err := f.checkKustomization(path, f.content); err != nil {
			return nil, f.refuse(err)
		}
		f.record(abs)
		return f.withHelmCharts(path, f.content)
	}
	if data, ok := f.virtualFile(path); ok {
		return data, nil
	}
	if err := f.guard(path); err != nil {
		return nil, f.refuse(err)
	}
	data, readErr := f.FileSystem.ReadFile(path)
	if readErr == nil && isKustomizationFile(filepath.Base(path)) {
		if err := f.checkKustomization(path, data); err != nil {
			return nil, f.refuse(err)
		}
		if data, readErr = f.withHelmCharts(path, data); readErr != nil {
			return nil, readErr
		}
	}
	if readErr == nil && err == nil {
		f.record(abs)
	}
	return data, readErr
}

// Open opens a file from disk after the checks of guard.
func (f *recordingFS) Open(path string) (filesys.File, error) {
	if err := f.guard(path); err != nil {
		return nil, f.refuse(err)
	}
	return f.FileSystem.Open(path)
}

func (f *recordingFS) record(abs string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads[abs] = true
}
