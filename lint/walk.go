package lint

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// fileSet reads the files of one run's PATHs as `kubectl apply -f PATH -R`
// does, with the bounds an untrusted repository needs: symlinks are followed
// while their targets stay within the roots (the PATHs given), loops are
// reported, only regular files are opened, and each file is read once however
// it was named (dir and dir/file.yaml, x and ./x), by its real path.
type fileSet struct {
	roots *Roots
	// files and dirs are the real paths read or walked so far.
	files map[string]bool
	dirs  map[string]bool
}

func newFileSet(roots *Roots) *fileSet {
	return &fileSet{roots: roots, files: map[string]bool{}, dirs: map[string]bool{}}
}

// walked is a file found in a directory: a manifest, or a kustomization file
// (which "Kustomization" is even without a manifest extension), or a path that
// could not be read (err set).
type walked struct {
	path string
	// real is the path with symlinks resolved; "" when err is set.
	real string
	err  error
}

// walk lists the manifest and kustomization files under top in lexical order,
// skipping hidden files and directories (.git, editor state, CI configs that
// are not policies) and directories walked already. Paths are named below top
// as found (through the link, not its target).
func (s *fileSet) walk(top string) []walked {
	top = filepath.Clean(top)
	real, err := realPath(top)
	if err != nil {
		return []walked{{path: top, err: err}}
	}
	var out []walked
	s.walkDir(top, real, map[string]bool{}, &out)
	return out
}

// walkDir appends the files of dir (whose real path is real) to out; stack
// holds the real paths of the directories being walked, to tell a loop.
func (s *fileSet) walkDir(dir, real string, stack map[string]bool, out *[]walked) {
	if s.dirs[real] {
		return // read already under another name
	}
	s.dirs[real] = true
	stack[real] = true
	defer delete(stack, real)
	entries, err := os.ReadDir(dir)
	if err != nil {
		*out = append(*out, walked{path: dir, err: err})
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		p := filepath.Join(dir, name)
		switch mode := e.Type(); {
		case mode&fs.ModeSymlink != 0:
			s.walkLink(p, stack, out)
		case mode.IsDir():
			s.walkDir(p, filepath.Join(real, name), stack, out)
		case !wanted(name):
		case mode.IsRegular():
			*out = append(*out, walked{path: p, real: filepath.Join(real, name)})
		default:
			*out = append(*out, walked{path: p, err: fmt.Errorf("is not a regular file (%s); only regular files are read", fileType(mode))})
		}
	}
}

// walkLink follows a symlink found in a walk: into a directory, or to a file
// the walk wants, only within the roots. A link the walk would not read (a
// file without a manifest name) is passed over whatever its target.
func (s *fileSet) walkLink(p string, stack map[string]bool, out *[]walked) {
	real, err := s.roots.Resolve(p)
	if err != nil {
		if le, ok := err.(*LinkError); ok && le.Target != "" && !wanted(filepath.Base(p)) {
			if info, serr := os.Stat(le.Target); serr == nil && !info.IsDir() {
				return // not a manifest, and not a directory to walk into
			}
		}
		*out = append(*out, walked{path: p, err: err})
		return
	}
	info, err := os.Stat(real)
	switch {
	case err != nil:
		*out = append(*out, walked{path: p, err: err})
	case info.IsDir() && stack[real]:
		*out = append(*out, walked{path: p, err: &LinkError{Link: p, Target: real,
			Reason: "points to a directory that contains it (a loop); not followed"}})
	case info.IsDir():
		s.walkDir(p, real, stack, out)
	case !wanted(filepath.Base(p)):
	case info.Mode().IsRegular():
		*out = append(*out, walked{path: p, real: real})
	default:
		*out = append(*out, walked{path: p, err: fmt.Errorf("symlink %s -> %s: is not a regular file (%s); only regular files are read", p, real, fileType(info.Mode()))})
	}
}

// wanted reports whether the walk lists a file of this name.
func wanted(name string) bool {
	return isManifest(name) || isKustomizationFile(name)
}

// walkedUnits reads a walked manifest as it is; a "Kustomization" file has no
// manifest extension and is only looked at when rendering.
func (s *fileSet) walkedUnits(f walked, fn func(unit)) {
	switch {
	case f.err != nil:
		fn(unit{file: f.path, err: f.err})
	case isManifest(filepath.Base(f.path)):
		s.readFile(f.path, f.real, fn)
	}
}

// fileUnits reads a file given as a PATH (symlinks followed: the user named it).
func (s *fileSet) fileUnits(path string, fn func(unit)) {
	real, err := realPath(path)
	if err != nil {
		fn(unit{file: path, err: err})
		return
	}
	s.readFile(path, real, fn)
}

// readFile splits the file named path, at real, into units unless it was read
// already; only a regular file within MaxFileBytes is read.
func (s *fileSet) readFile(path, real string, fn func(unit)) {
	if s.files[real] {
		return
	}
	s.files[real] = true
	f, err := openRegular(real)
	if err != nil {
		fn(unit{file: path, err: err})
		return
	}
	defer f.Close()
	splitReader(path, f, fn)
}
