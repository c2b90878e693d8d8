package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/meshguard/meshguard/validate"
)

// pathsTree is a repository with a policy directory, another directory a
// symlink names as a PATH, and a file outside both that holds a secret.
func pathsTree(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel, content string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	allow := "apiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata:\n  name: allow-web\n  namespace: kuma-system\n" +
		"spec:\n  targetRef:\n    kind: Mesh\n  from:\n    - targetRef:\n        kind: MeshSubset\n        tags:\n          kuma.io/service: web\n      default:\n        action: Allow\n"
	write("policies/allow.yaml", allow)
	write("secret/kubeconfig.yaml", "apiVersion: v1\nkind: Config\nmetadata:\n  name: leaked\nusers:\n  - name: admin\n    user: {token: sekret-token-123}\n")
	if err := os.Symlink(filepath.Join(root, "policies"), filepath.Join(root, "linked")); err != nil {
		t.Fatal(err)
	}
	return root
}

// runWithin runs the CLI and fails when it takes longer than a few seconds.
func runWithin(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	type result struct {
		out, errOut string
		code        int
	}
	done := make(chan result, 1)
	go func() {
		out, errOut, code := cli(t, "", args...)
		done <- result{out, errOut, code}
	}()
	select {
	case r := <-done:
		return r.out, r.errOut, r.code
	case <-time.After(30 * time.Second):
		t.Fatalf("meshguard %v hangs", args)
		return "", "", 0
	}
}

// TestSymlinkedPathEveryDoor: a PATH that is a symlink to a directory is read
// through the link by every door; before, it read as empty and each door
// passed: lint "0 documents", check the default DENY, preview nothing, diff
// no change.
func TestSymlinkedPathEveryDoor(t *testing.T) {
	root := pathsTree(t)
	linked := filepath.Join(root, "linked")
	rep, code := lintJSON(t, "", linked)
	if rep.Summary.Documents != 1 || code != exitFindings && code != exitOK {
		t.Errorf("lint of a symlinked directory: %d documents, exit %d", rep.Summary.Documents, code)
	}
	out, errOut, code := cli(t, "", "check", linked, "--from", "kuma.io/service=web", "--to", "kuma.io/service=backend")
	if code != exitOK || !strings.Contains(out, "ALLOW") {
		t.Errorf("check through the link: exit %d\n%s%s", code, out, errOut)
	}
	out, _, code = cli(t, "", "preview", linked)
	if code != exitOK || !strings.Contains(out, "allow-web") {
		t.Errorf("preview through the link: exit %d\n%s", code, out)
	}
	empty := filepath.Join(root, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = cli(t, "", "diff", "--fail-on", "widen", empty, linked)
	if code != exitFindings {
		t.Errorf("diff --fail-on widen from nothing to the linked policies: exit %d, want %d\n%s%s", code, exitFindings, out, errOut)
	}
	// A symlink to a file, as a PATH.
	file := filepath.Join(root, "one.yaml")
	if err := os.Symlink(filepath.Join(root, "policies", "allow.yaml"), file); err != nil {
		t.Fatal(err)
	}
	if rep, _ := lintJSON(t, "", file); rep.Summary.Documents != 1 {
		t.Errorf("lint of a symlinked file: %d documents", rep.Summary.Documents)
	}
}

// TestLinkOutsideRootsNeverPrinted: a symlink in the linted tree to a file
// outside it is an input error naming the link and its target, and neither
// lint nor default prints what the target holds.
func TestLinkOutsideRootsNeverPrinted(t *testing.T) {
	root := pathsTree(t)
	link := filepath.Join(root, "policies", "kubeconfig.yaml")
	if err := os.Symlink(filepath.Join(root, "secret", "kubeconfig.yaml"), link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"lint", filepath.Join(root, "policies")},
		{"lint", "-o", "json", filepath.Join(root, "policies")},
		{"default", filepath.Join(root, "policies")},
	} {
		out, errOut, code := cli(t, "", args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
		for _, leak := range []string{"sekret-token-123", "leaked"} {
			if strings.Contains(out+errOut, leak) {
				t.Errorf("%v printed %q from outside the tree:\n%s%s", args, leak, out, errOut)
			}
		}
		if !strings.Contains(out+errOut, link+" -> "+filepath.Join(root, "secret", "kubeconfig.yaml")+" points outside the PATHs given") {
			t.Errorf("%v does not name the link and its target:\n%s%s", args, out, errOut)
		}
	}
	// Given as a PATH too, the target is inside the roots and read once.
	rep, _ := lintJSON(t, "", filepath.Join(root, "policies"), filepath.Join(root, "secret"))
	if rep.Summary.Documents != 2 {
		t.Errorf("with the target's directory as a PATH: %d documents, want 2", rep.Summary.Documents)
	}
}

// TestMissingPathIsInputError: a PATH that does not exist is exit 2 with a
// message, before any output: no SARIF result about a file that is not there.
func TestMissingPathIsInputError(t *testing.T) {
	root := pathsTree(t)
	missing := filepath.Join(root, "nope.yaml")
	for _, args := range [][]string{
		{"lint", "-o", "sarif", filepath.Join(root, "policies"), missing},
		{"default", missing},
		{"preview", missing},
		{"check", missing, "--from", "kuma.io/service=web", "--to", "kuma.io/service=backend"},
	} {
		out, errOut, code := cli(t, "", args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, "PATH "+missing+": no such file or directory") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

// TestFIFOIsInputError: a named pipe called *.yaml (or a link to one) is an
// error at once; opened for reading it would block forever.
func TestFIFOIsInputError(t *testing.T) {
	root := pathsTree(t)
	fifo := filepath.Join(root, "policies", "pipe.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	out, errOut, code := runWithin(t, "lint", filepath.Join(root, "policies"))
	if code != exitUsage || !strings.Contains(out, fifo+":1: error MG000 is not a regular file (a named pipe)") {
		t.Errorf("lint of a directory with a FIFO: exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = runWithin(t, "lint", fifo)
	if code != exitUsage || !strings.Contains(errOut, "named pipe") {
		t.Errorf("lint FIFO: exit %d, stderr %q", code, errOut)
	}
}

// TestHugeFileRefusedAtOnce: a 100 MB file is refused from its size, before
// any parsing (a sparse file: nothing is written).
func TestHugeFileRefusedAtOnce(t *testing.T) {
	root := pathsTree(t)
	big := filepath.Join(root, "policies", "big.yaml")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(100 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	start := time.Now()
	_, errOut, code := runWithin(t, "lint", big)
	if code != exitUsage || !strings.Contains(errOut, "larger than 64 MiB") {
		t.Errorf("lint of a 100 MB file: exit %d, stderr %q", code, errOut)
	}
	out, _, code := runWithin(t, "lint", filepath.Join(root, "policies"))
	if code != exitUsage || !strings.Contains(out, "big.yaml:1: error MG000 file is larger than 64 MiB") {
		t.Errorf("lint of a directory with a 100 MB file: exit %d\n%s", code, out)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("refusing a 100 MB file took %v", took)
	}
}

// TestOverlappingPathsAndDuplicates: a file named twice is linted once (no
// false MG201 from a policy shadowing its own copy); two documents of one
// object are an MG006 error that names both places.
func TestOverlappingPathsAndDuplicates(t *testing.T) {
	root := pathsTree(t)
	dir := filepath.Join(root, "policies")
	for _, args := range [][]string{
		{dir, filepath.Join(dir, "allow.yaml")},
		{dir, root + "/./policies/"},
		{dir, filepath.Join(root, "linked")},
	} {
		rep, code := lintJSON(t, "", args...)
		if rep.Summary.Documents != 1 || rep.Summary.Errors != 0 || code != exitOK {
			t.Errorf("lint %v: %d documents, exit %d, findings %+v", args, rep.Summary.Documents, code, rep.Findings)
		}
		for _, f := range rep.Findings {
			if f.Code == "MG201" {
				t.Errorf("lint %v: a policy shadows its own copy: %s", args, f.Message)
			}
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "allow.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	copyFile := filepath.Join(root, "copy.yaml")
	if err := os.WriteFile(copyFile, append([]byte("# a copy\n"), data...), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, code := lintJSON(t, "", dir, copyFile)
	var codes []string
	for _, f := range rep.Findings {
		if f.Code == "MG190" { // 'from' is deprecated: true of both copies
			continue
		}
		codes = append(codes, f.Code)
		if f.Code == validate.CodeDuplicate {
			want := filepath.Join(dir, "allow.yaml") + ":4 and again at " + copyFile + ":5"
			if f.File != filepath.Join(dir, "allow.yaml") || f.Line != 4 || !strings.Contains(f.Message, want) {
				t.Errorf("duplicate finding at %s:%d: %s; want it on the first copy, naming %q", f.File, f.Line, f.Message, want)
			}
		}
	}
	if code != exitFindings || strings.Join(codes, ",") != validate.CodeDuplicate {
		t.Errorf("two copies of one policy: exit %d, codes %v; want only %s", code, codes, validate.CodeDuplicate)
	}
	out, _, _ := cli(t, "", "preview", "-o", "json", dir, copyFile)
	var previews []json.RawMessage
	if err := json.Unmarshal([]byte(out), &previews); err == nil && len(previews) > 1 {
		t.Errorf("preview compiled both copies: %s", out)
	}
}
