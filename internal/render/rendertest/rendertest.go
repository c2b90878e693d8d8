// Package rendertest builds the real meshguard-render for the tests of the
// packages that render charts and kustomizations (lint, cmd/meshguard), so
// they exercise the renderer as it ships, in a process of its own.
package rendertest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/meshguard/meshguard/internal/render"
)

// Build compiles cmd/meshguard-render into a new temporary directory and
// returns the executable's path and a function that removes the directory.
// A test binary's TestMain calls it once and sets render.EnvRenderer to the
// path, so every render of the package's tests finds it.
func Build() (string, func(), error) {
	dir, err := os.MkdirTemp("", "meshguard-render-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	name := render.ExecutableName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	exe := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", exe, "github.com/meshguard/meshguard/cmd/meshguard-render")
	if out, err := cmd.CombinedOutput(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("go build meshguard-render: %v\n%s", err, out)
	}
	return exe, cleanup, nil
}

// Main is a TestMain body: it builds the renderer, points render.EnvRenderer
// at it for the tests run(), and returns their exit code.
func Main(run func() int) int {
	exe, cleanup, err := Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer cleanup()
	os.Setenv(render.EnvRenderer, exe)
	return run()
}
