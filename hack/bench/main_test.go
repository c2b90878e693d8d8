package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestDispatch: every measurement answers -h through bench (exit 0, its flags
// printed), an unknown one and a bad flag are usage errors (exit 2), and the
// usage text names every measurement.
func TestDispatch(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(nil, &stdout, &stderr); code != 2 {
		t.Errorf("bench without a measurement: exit %d, want 2", code)
	}
	for _, c := range commands() {
		if !strings.Contains(stderr.String(), "  "+c.name+" ") {
			t.Errorf("usage does not name %s:\n%s", c.name, stderr.String())
		}
	}
	for _, c := range commands() {
		if strings.HasSuffix(c.summary, ".sh)") {
			continue // the shell measurements build and install before they parse
		}
		stderr.Reset()
		if code := run([]string{c.name, "-h"}, &stdout, &stderr); code != 0 {
			t.Errorf("bench %s -h: exit %d, want 0:\n%s", c.name, code, stderr.String())
		}
		if code := run([]string{c.name, "-no-such-flag"}, &stdout, &stderr); code != 2 {
			t.Errorf("bench %s -no-such-flag: exit %d, want 2", c.name, code)
		}
	}
	if code := run([]string{"nonsense"}, &stdout, &stderr); code != 2 {
		t.Errorf("bench nonsense: exit %d, want 2", code)
	}
}

// TestScriptsFound: the shell measurements are found from a directory inside the
// repository, and a script's exit code comes back as bench's.
func TestScriptsFound(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"lint-vs-kubeconform.sh", "startup-vs-kubeconform.sh", "lint-growth.sh"} {
		if _, err := os.Stat(root + "/hack/bench/" + name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	var stdout, stderr bytes.Buffer
	// An unknown option is each script's usage error, exit 2.
	for _, name := range []string{"lint", "startup", "growth"} {
		if code := run([]string{name, "--no-such-option"}, &stdout, &stderr); code != 2 {
			t.Errorf("bench %s --no-such-option: exit %d, want 2:\n%s", name, code, stderr.String())
		}
	}
}
