package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/lint"
)

// repoRoot is the repository's root, seen from this package's directory.
const repoRoot = "../.."

// binDirEnv names the directory TestMain makes for buildBinary: the test process
// builds meshguard there once and every test that runs the binary shares it
// (read-only), instead of linking it again per test (about a minute each on a
// loaded 2-core machine).
const binDirEnv = "MESHGUARD_TEST_BIN_DIR"

// withBinDir is TestMain's wrapper around run: it makes the directory of
// buildBinary, empty until a test asks for the binary, and removes it after run.
func withBinDir(run func() int) int {
	dir, err := os.MkdirTemp("", "meshguard-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer os.RemoveAll(dir)
	os.Setenv(binDirEnv, dir)
	return run()
}

// buildBinary returns a directory holding meshguard and its renderer,
// meshguard-render, as a release archive ships them, for tests that run it the way
// other tools do (pre-commit, the GitHub Action's script). The first call of the
// test process builds meshguard (the renderer is the one TestMain built, copied);
// later calls return the same directory. Tests must not write into it.
func buildBinary(t *testing.T) string {
	t.Helper()
	dir := os.Getenv(binDirEnv)
	if dir == "" {
		dir = t.TempDir() // a test binary without this package's TestMain
	}
	exe := filepath.Join(dir, "meshguard")
	if _, err := os.Stat(exe); err == nil {
		return dir
	}
	// Built beside the final names and renamed into place, so a directory with
	// meshguard in it is always complete.
	stage := t.TempDir()
	cmd := exec.Command("go", "build", "-o", filepath.Join(stage, "meshguard"), ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	render := os.Getenv(lint.RendererEnv)
	if render == "" {
		cmd = exec.Command("go", "build", "-o", filepath.Join(stage, "meshguard-render"), "../meshguard-render")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
	} else {
		copyExecutable(t, render, filepath.Join(stage, "meshguard-render"))
	}
	for _, name := range []string{"meshguard-render", "meshguard"} {
		if err := os.Rename(filepath.Join(stage, name), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// copyExecutable copies the executable from to to (mode 0755).
func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		t.Fatal(err)
	}
}

// needTool skips the test when name is not on PATH, saying how to install it.
func needTool(t *testing.T, name, install string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed, so this test cannot run (install it: %s)", name, install)
	}
}

// sh runs a command in dir with env added and returns its combined output and exit code.
// $MESHGUARD_RENDERER (TestMain's renderer) is cleared, so a meshguard started here
// finds its renderer as an installed one does: next to itself or on $PATH.
func sh(t *testing.T, dir string, env []string, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), lint.RendererEnv+"="), env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return string(out), code
}

// gitRepo makes dir a git repository holding its current files in one commit, and
// returns that commit.
func gitRepo(t *testing.T, dir string) string {
	t.Helper()
	// A .git here (a worktree's .git is a file) would make git commit into that
	// repository instead of a new one.
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
		t.Fatalf("%s already has a .git; refusing to commit there", dir)
	}
	id := []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "test"}} {
		if out, code := sh(t, dir, id, "git", args...); code != 0 {
			t.Fatalf("git %v: exit %d\n%s", args, code, out)
		}
	}
	out, _ := sh(t, dir, nil, "git", "rev-parse", "HEAD")
	return strings.TrimSpace(out)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// policyRepo is a user's repository with one good and one bad Kuma policy and a
// pre-commit config that uses hook id from hooksRepo at rev.
func policyRepo(t *testing.T, hooksRepo, rev, id string) string {
	t.Helper()
	dir := t.TempDir()
	copyFile(t, filepath.Join(repoRoot, "examples/valid/02-producer-backend.yaml"), filepath.Join(dir, "policies/good.yaml"))
	copyFile(t, filepath.Join(repoRoot, "examples/invalid/wrong-type.yaml"), filepath.Join(dir, "policies/bad.yaml"))
	cfg := "repos:\n- repo: " + hooksRepo + "\n  rev: " + rev + "\n  hooks:\n  - id: " + id + "\n"
	if err := os.WriteFile(filepath.Join(dir, ".pre-commit-config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRepo(t, dir)
	return dir
}

// checkHook runs the hook on the good file (passes), the bad one (fails with the
// finding) and every file (fails), with the real pre-commit.
func checkHook(t *testing.T, dir string, env []string) {
	t.Helper()
	out, code := sh(t, dir, env, "pre-commit", "run", "--files", "policies/good.yaml")
	if code != 0 {
		t.Fatalf("pre-commit on the good policy: exit %d, want 0\n%s", code, out)
	}
	out, code = sh(t, dir, env, "pre-commit", "run", "--files", "policies/bad.yaml")
	if code != 1 || !strings.Contains(out, "MG002") || !strings.Contains(out, "policies/bad.yaml") {
		t.Errorf("pre-commit on the bad policy: exit %d, want 1 with MG002 on policies/bad.yaml\n%s", code, out)
	}
	out, code = sh(t, dir, env, "pre-commit", "run", "--all-files")
	if code != 1 || !strings.Contains(out, "Failed") {
		t.Errorf("pre-commit --all-files: exit %d, want 1\n%s", code, out)
	}
}

// TestPreCommitSystemHook runs .pre-commit-hooks.yaml's meshguard-lint-system hook
// with the real pre-commit on a repository with a good and a bad policy.
func TestPreCommitSystemHook(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pre-commit")
	}
	needTool(t, "git", "apt-get install git")
	needTool(t, "pre-commit", "apt-get install pre-commit, or pip install pre-commit")
	bin := buildBinary(t)
	hooks := t.TempDir()
	copyFile(t, filepath.Join(repoRoot, ".pre-commit-hooks.yaml"), filepath.Join(hooks, ".pre-commit-hooks.yaml"))
	rev := gitRepo(t, hooks)
	dir := policyRepo(t, hooks, rev, "meshguard-lint-system")
	checkHook(t, dir, []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "PRE_COMMIT_HOME=" + t.TempDir()})
}

// TestPreCommitGoHook runs the meshguard-lint hook, which pre-commit builds with
// `go install ./...` from a clone of this repository: every main package, so it is
// opt-in (MESHGUARD_TEST_PRECOMMIT_GO=1). It runs offline from the local module
// cache (GOPROXY=off), since pre-commit points GOPATH at its own directory.
func TestPreCommitGoHook(t *testing.T) {
	if os.Getenv("MESHGUARD_TEST_PRECOMMIT_GO") != "1" {
		t.Skip("set MESHGUARD_TEST_PRECOMMIT_GO=1 to build the golang hook with pre-commit (builds every main package, minutes on 2 cores)")
	}
	needTool(t, "git", "apt-get install git")
	needTool(t, "pre-commit", "apt-get install pre-commit, or pip install pre-commit")
	hooks := t.TempDir()
	err := filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, p)
		switch {
		case d.Name() == ".git" && !d.IsDir():
			return nil // a worktree's .git file: it points at the checkout's repository
		case d.IsDir() && (d.Name() == ".git" || d.Name() == "bin" || d.Name() == ".demo" || d.Name() == ".cache"):
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			copyFile(t, p, filepath.Join(hooks, rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rev := gitRepo(t, hooks)
	dir := policyRepo(t, hooks, rev, "meshguard-lint")
	modcache, _ := sh(t, ".", nil, "go", "env", "GOMODCACHE")
	env := []string{"PRE_COMMIT_HOME=" + t.TempDir(), "GOMODCACHE=" + strings.TrimSpace(modcache),
		"GOPROXY=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local"}
	checkHook(t, dir, env)
	// go install ./... installed meshguard-render beside meshguard: staged
	// charts and kustomizations render (same PRE_COMMIT_HOME: no second build).
	dir = renderRepo(t, hooks, rev, "meshguard-lint")
	for file, want := range map[string]string{
		"charts/app/templates/timeout.yaml":  "1 document, 0 errors",
		"deploy/overlays/staging/patch.yaml": "rendered by deploy/overlays/staging/kustomization.yaml",
	} {
		out, _ := sh(t, dir, env, "pre-commit", "run", "--verbose", "--files", file)
		if !strings.Contains(out, want) || strings.Contains(out, "meshguard-render is neither") {
			t.Errorf("pre-commit on %s: want %q in the output:\n%s", file, want, out)
		}
	}
}
