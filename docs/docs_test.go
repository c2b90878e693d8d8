// Package docs holds meshguard's documentation; its test keeps the repository readable
// by someone who has only a clone: no file points outside it, and every relative link
// in the Markdown files resolves.
package docs

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// skipDirs are not part of what a user reads: VCS data, build output, demo state.
var skipDirs = map[string]bool{".git": true, "bin": true, ".demo": true, "node_modules": true}

// walkRepo calls fn for every regular file of the repository, with its path relative
// to the root.
func walkRepo(t *testing.T, fn func(rel string, data []byte)) {
	t.Helper()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("..", path)
		fn(filepath.ToSlash(rel), data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNothingPointsOutsideTheRepository fails when a test, doc or message refers to
// files that exist only beside this repository in the developers' workspace.
func TestNothingPointsOutsideTheRepository(t *testing.T) {
	// Spelled in pieces so that this file does not match itself.
	outside := []string{"../" + "shared", "shared/" + "seeds", "shared/" + "conformance", "DESIGN" + ".md", "seed " + "00"}
	walkRepo(t, func(rel string, data []byte) {
		for _, s := range outside {
			if i := strings.Index(string(data), s); i >= 0 {
				line := strings.Count(string(data[:i]), "\n") + 1
				t.Errorf("%s:%d refers to %q, which a user of this repository cannot open", rel, line, s)
			}
		}
	})
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestRelativeLinksResolve checks every relative link of every Markdown file.
func TestRelativeLinksResolve(t *testing.T) {
	walkRepo(t, func(rel string, data []byte) {
		if !strings.HasSuffix(rel, ".md") {
			return
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.ContainsAny(target, "[]*") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			path := filepath.Join("..", filepath.Dir(rel), target)
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links to %s, which does not exist", rel, m[1])
			}
		}
	})
}

// TestGoVersionMatchesGoMod keeps every "Go 1.x" a reader is told to install at
// least the version go.mod requires: a reader with Go 1.26.0 whom the README
// told "Go 1.26" gets a toolchain download or an error.
func TestGoVersionMatchesGoMod(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+(?:\.\d+)?)$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	want := string(m[1])
	minor := want[:strings.LastIndex(want, ".")]
	needs := regexp.MustCompile(`(?i)\b(?:only Go|Go) \(?(` + regexp.QuoteMeta(minor) + `(?:\.\d+)?)\b`)
	for _, rel := range []string{"README.md", "docs/integrations.md"} {
		data, err := os.ReadFile(filepath.Join("..", rel))
		if err != nil {
			t.Fatal(err)
		}
		for _, got := range needs.FindAllSubmatch(data, -1) {
			if string(got[1]) != want {
				t.Errorf("%s tells readers to use Go %s; go.mod needs %s", rel, got[1], want)
			}
		}
	}
}

// TestMakeHelpPlainInPipes runs `make help` with standard output a pipe, as
// `make help | less` or a CI log has it: no colour escape codes, every target.
func TestMakeHelpPlainInPipes(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	cmd := exec.Command("make", "-s", "--no-print-directory", "help")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", "NO_COLOR=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make help: %v", err)
	}
	if i := bytes.IndexByte(out, 0x1b); i >= 0 {
		t.Errorf("make help writes an escape byte into a pipe at offset %d:\n%q", i, out)
	}
	for _, target := range []string{"help", "build", "test"} {
		if !regexp.MustCompile(`(?m)^  ` + target + ` +\S`).Match(out) {
			t.Errorf("make help does not list %s:\n%s", target, out)
		}
	}
}
