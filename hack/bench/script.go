package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// scriptExit is a shell measurement that exited non-zero: bench exits with the
// same code (2 is the scripts' usage error too).
type scriptExit struct{ code int }

// Error says how the script exited.
func (e *scriptExit) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// script runs one of the shell measurements beside this file (they time whole
// processes with GNU time, which a shell does plainly): bash, the script, args.
func script(name string) func(args []string, stdout io.Writer) error {
	return func(args []string, stdout io.Writer) error {
		root, err := repoRoot()
		if err != nil {
			return err
		}
		cmd := exec.Command("bash", append([]string{filepath.Join(root, "hack", "bench", name)}, args...)...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, os.Stderr
		err = cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return &scriptExit{code: exit.ExitCode()}
		}
		return err
	}
}

// repoRoot is the directory above the current one that holds meshguard's go.mod
// and this harness.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "hack", "bench", "main.go")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("run bench inside meshguard's repository (no hack/bench/main.go above the current directory)")
		}
		dir = parent
	}
}
