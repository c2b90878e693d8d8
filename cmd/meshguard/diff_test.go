package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const (
	diffOld = "testdata/diff/realistic-old"
	diffNew = "testdata/diff/realistic-new"
)

// TestDiffGolden: the realistic sets (mesh-wide deny, namespace allows, a
// workload-owner override; a Linkerd Server with a route, AuthorizationPolicies
// and a MeshTLSAuthentication) in every output format.
func TestDiffGolden(t *testing.T) {
	for _, f := range []struct{ output, file string }{
		{"text", "diff/realistic.golden.txt"},
		{"json", "diff/realistic.golden.json"},
		{"markdown", "diff/realistic.golden.md"},
	} {
		t.Run(f.output, func(t *testing.T) {
			out, errOut, code := cli(t, "", "diff", "-o", f.output, diffOld, diffNew)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, f.file, out)
		})
	}
}

func TestDiffJSONShape(t *testing.T) {
	out, _, _ := cli(t, "", "diff", "-o", "json", diffOld, diffNew)
	var doc struct {
		Widens bool `json:"widens"`
		Kuma   []struct {
			Scope   string `json:"scope"`
			Classes int    `json:"classes"`
			Changes []struct {
				Change  string   `json:"change"`
				Clients []string `json:"clients"`
				Old     struct {
					Allow bool `json:"allow"`
					By    *struct{ Policy, Path, Action string }
				} `json:"old"`
			} `json:"changes"`
		} `json:"kuma"`
		Linkerd []struct {
			Namespace, Name string
			Changes         []struct{ Change string } `json:"changes"`
		} `json:"linkerd"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if !doc.Widens || len(doc.Kuma) != 2 || len(doc.Linkerd) != 1 {
		t.Fatalf("unexpected document: %+v", doc)
	}
	c := doc.Kuma[0].Changes[0]
	if c.Change != "widened" || c.Old.Allow || c.Old.By == nil || c.Old.By.Policy != "kuma-system/mesh-deny-all" || c.Old.By.Path != "spec.from[0]" {
		t.Errorf("first change: %+v", c)
	}
}

func TestDiffExitCodes(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"widening fails with --fail-on widen", []string{"--fail-on", "widen", diffOld, diffNew}, exitFindings, ""},
		{"not compared under --fail-on widen", []string{"--fail-on", "widen", "--max-classes", "1", diffOld, "testdata/diff/narrowed"}, exitUsage, "were not compared"},
		{"narrowing only passes", []string{"--fail-on", "widen", diffOld, "testdata/diff/narrowed"}, exitOK, ""},
		{"no change", []string{"--fail-on", "widen", diffOld, diffOld}, exitOK, ""},
		{"widening fails with --fail-on error", []string{"--fail-on", "error", diffOld, diffNew}, exitFindings, ""},
		{"narrowing passes --fail-on error", []string{"--fail-on", "error", diffOld, "testdata/diff/narrowed"}, exitOK, ""},
		{"narrowing fails --fail-on warning", []string{"--fail-on", "warning", diffOld, "testdata/diff/narrowed"}, exitFindings, ""},
		{"no change passes --fail-on warning", []string{"--fail-on", "warning", diffOld, diffOld}, exitOK, ""},
		{"one argument", []string{diffOld}, exitUsage, "diff needs OLD and NEW"},
		{"stdin", []string{"-", diffOld}, exitUsage, "not standard input"},
		{"missing path", []string{diffOld, "testdata/diff/nope"}, exitUsage, "no such file"},
		{"bad output", []string{"-o", "csv", diffOld, diffNew}, exitUsage, "--output must be text, json, yaml or markdown"},
		{"bad fail-on", []string{"--fail-on", "narrow", diffOld, diffNew}, exitUsage, "--fail-on must be error, warning or none"},
		{"git-base without a path", []string{"--git-base", "HEAD"}, exitUsage, "needs at least one PATH"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := cli(t, "", append([]string{"diff"}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, out, errOut)
			}
			if !strings.Contains(errOut, tt.err) {
				t.Errorf("stderr %q does not say %q", errOut, tt.err)
			}
		})
	}
}

func TestDiffNoChange(t *testing.T) {
	out, _, code := cli(t, "", "diff", diffOld, diffOld)
	if code != exitOK || !strings.Contains(out, "Kuma: no proxy group changes access") || !strings.Contains(out, "Linkerd: no Server changes access") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// TestDiffGitBase commits the old set, puts the new one in its place and diffs
// against the commit; then against a revision without the directory, outside a
// repository and with an unknown revision.
func TestDiffGitBase(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	gitRun := gitIn(t, repo)
	copyDir := func(from, to string) {
		t.Helper()
		os.RemoveAll(to)
		if err := os.MkdirAll(to, 0o755); err != nil {
			t.Fatal(err)
		}
		entries, err := os.ReadDir(from)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(from, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	gitRun("init", "-q")
	os.WriteFile(filepath.Join(repo, "README"), []byte("x\n"), 0o644)
	gitRun("add", ".")
	gitRun("commit", "-qm", "empty")
	gitRun("tag", "empty")
	policies := filepath.Join(repo, "mesh", "policies")
	copyDir(diffOld, policies)
	gitRun("add", ".")
	gitRun("commit", "-qm", "old")
	copyDir(diffNew, policies)

	out, errOut, code := cli(t, "", "diff", "--git-base", "HEAD", "--fail-on", "widen", policies)
	if code != exitFindings || !strings.Contains(out, "meshguard diff HEAD:"+policies+" -> "+policies+"\n") {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	want, _, _ := cli(t, "", "diff", diffOld, diffNew)
	if strip := func(s string) string { return s[strings.Index(s, "\n"):] }; strip(out) != strip(want) {
		t.Errorf("--git-base differs from diffing the directories:\n%s\nwant:\n%s", out, want)
	}
	out, errOut, code = cli(t, "", "diff", "--git-base", "empty", policies)
	if code != exitOK || !strings.Contains(errOut, "did not exist at empty: the old set is empty") || !strings.Contains(out, "widened") {
		t.Errorf("exit %d:\n%s%s", code, out, errOut)
	}
	_, errOut, code = cli(t, "", "diff", "--git-base", "no-such-ref", policies)
	if code != exitUsage || !strings.Contains(errOut, `"no-such-ref" is not a revision`) {
		t.Errorf("exit %d: %s", code, errOut)
	}
	outside := t.TempDir()
	_, errOut, code = cli(t, "", "diff", "--git-base", "HEAD", outside)
	if code != exitUsage || !strings.Contains(errOut, "is not inside a git work tree") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// gitIn is a git runner in repo for tests: a fixed identity, no signing, and a
// failed command fails the test with git's output.
func gitIn(t *testing.T, repo string) func(args ...string) {
	return func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}
