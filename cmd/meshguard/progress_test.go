package main

import (
	"strings"
	"testing"
)

// TestLintProgressFlag: --progress=always draws the line on standard error (here a
// buffer) and clears it; never and auto (standard error is no terminal) draw
// nothing; the findings on standard output do not change.
func TestLintProgressFlag(t *testing.T) {
	in := corpus(40)
	outNever, errNever, codeNever := cli(t, in, "lint", "--progress=never", "--progress-delay=0", "-")
	if errNever != "" {
		t.Errorf("--progress=never wrote %q", errNever)
	}
	outAuto, errAuto, _ := cli(t, in, "lint", "--progress-delay=0", "-")
	if errAuto != "" {
		t.Errorf("--progress=auto on a buffer wrote %q", errAuto)
	}
	out, errOut, code := cli(t, in, "lint", "--progress=always", "--progress-delay=0", "-")
	if !strings.HasPrefix(errOut, "\r\x1b[Kmeshguard lint: ") || !strings.Contains(errOut, " documents read, ") || !strings.HasSuffix(errOut, "\r\x1b[K") {
		t.Errorf("--progress=always wrote %q", errOut)
	}
	if out != outNever || out != outAuto || code != codeNever {
		t.Errorf("progress changed the findings or the exit code")
	}
	if _, errOut, code := cli(t, in, "lint", "--progress=sometimes", "-"); code != exitUsage || !strings.Contains(errOut, "--progress must be") {
		t.Errorf("--progress=sometimes: exit %d, %q", code, errOut)
	}
}
