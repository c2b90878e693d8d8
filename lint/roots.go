package lint

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Roots are the real paths (absolute, symlinks resolved) of the PATHs one run
// was given. A pull request can hold a symlink to /proc/self/environ or to a
// kubeconfig; everything a run reads through a link must stay within its roots,
// so that what meshguard prints never echoes a file outside the tree it lints.
// The file walk uses it; renderers that read through their own loaders (Helm,
// kustomize) can ask it the same question.
type Roots struct {
	real []string
}

// NewRoots resolves paths as lintRoots does ("-", standard input, and a PATH
// that does not exist are left out: CheckPaths reports the latter, and a run
// never reads anything through it), so the walk and the renderers agree on one
// set of roots.
func NewRoots(paths []string) *Roots {
	return &Roots{real: lintRoots(paths)}
}

// realPath is path made absolute with every symlink resolved.
func realPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// Contains reports whether real (a path as realPath returns it) is one of the
// roots or lies below one.
func (r *Roots) Contains(real string) bool {
	return within(real, r.real)
}

// Resolve follows the symlinks of path, a file or directory found under a root,
// and returns its real path. It fails with a *LinkError when a link loops or
// dangles, or when the target lies outside every root; the target is then
// never opened.
func (r *Roots) Resolve(path string) (string, error) {
	real, err := realPath(path)
	if err != nil {
		reason := "cannot be followed: " + errText(err)
		if strings.Contains(err.Error(), "too many links") || errors.Is(err, syscall.ELOOP) {
			reason = "is a loop of symlinks"
		} else if errors.Is(err, fs.ErrNotExist) {
			reason = "points to a file that does not exist"
		}
		return "", &LinkError{Link: path, Reason: reason}
	}
	if !r.Contains(real) {
		return "", &LinkError{Link: path, Target: real,
			Reason: "points outside the PATHs given; not read (give the target as a PATH if it is meant to be linted)"}
	}
	return real, nil
}

// LinkError is a symlink a run refuses to follow: a loop, a dangling link, or a
// target outside the roots. It names the link and, when known, its target,
// never the target's content.
type LinkError struct {
	Link, Target, Reason string
}

func (e *LinkError) Error() string {
	if e.Target != "" {
		return fmt.Sprintf("symlink %s -> %s %s", e.Link, e.Target, e.Reason)
	}
	return fmt.Sprintf("symlink %s %s", e.Link, e.Reason)
}

// errText is an error without the "lstat /abs/path: " prefix of path errors,
// whose path the caller names already.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// CheckPaths says whether every PATH of a run can be read: it exists (after
// following symlinks), is a directory or a regular file, is readable, and a
// file is within MaxFileBytes. The doors call it before any work, so a missing
// or unusable PATH is an input error (exit 2) rather than a finding about a file
// that is not there. All problems are reported together.
func CheckPaths(paths []string) error {
	var errs []error
	for _, p := range paths {
		if p == "-" {
			continue
		}
		if err := checkPath(p); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func checkPath(p string) error {
	info, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, lerr := os.Lstat(p); lerr == nil {
			return fmt.Errorf("PATH %s is a symlink to a file that does not exist", p)
		}
		return fmt.Errorf("PATH %s: no such file or directory", p)
	case errors.Is(err, syscall.ELOOP):
		return fmt.Errorf("PATH %s is a loop of symlinks", p)
	case err != nil:
		return fmt.Errorf("PATH %s cannot be read: %s", p, errText(err))
	case info.IsDir():
		f, err := os.Open(p)
		if err != nil {
			return fmt.Errorf("PATH %s cannot be read: %s", p, errText(err))
		}
		defer f.Close()
		if _, err := f.ReadDir(1); err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("PATH %s cannot be read: %s", p, errText(err))
		}
		return nil
	}
	f, err := openRegular(p)
	if err != nil {
		return fmt.Errorf("PATH %s: %s", p, errText(err))
	}
	return f.Close()
}

// openRegular opens path for reading only if it is a regular file of at most
// MaxFileBytes. It opens without blocking and checks the opened file, so a FIFO
// (or a symlink to one) named *.yaml is refused at once instead of hanging the
// run, and a device or socket is never read; a file past the size bound is
// refused before any of it is parsed.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil {
		err = checkRegular(info)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkRegular refuses what is not a regular file within MaxFileBytes.
func checkRegular(info fs.FileInfo) error {
	if !info.Mode().IsRegular() {
		return fmt.Errorf("is not a regular file (%s); only regular files are read", fileType(info.Mode()))
	}
	if info.Size() > MaxFileBytes {
		return fileTooLarge(info.Size())
	}
	return nil
}

// fileTooLarge is the error for input past MaxFileBytes; size < 0 when unknown.
func fileTooLarge(size int64) error {
	if size < 0 {
		return fmt.Errorf("input is larger than %d MiB; split it into smaller files", MaxFileBytes>>20)
	}
	return fmt.Errorf("file is larger than %d MiB (%d bytes); split it into smaller files", MaxFileBytes>>20, size)
}

// fileType names a non-regular file mode in words.
func fileType(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "mode " + m.String()
}
