package main

import (
	"io"
	"os"
	"testing"
)

// TestLintFile runs `meshguard lint --progress=never -o json FILE` in process on
// the file named by MESHGUARD_LINT_FILE, so that `go test -cpuprofile` or
// `-memprofile` can show where a large run (hack/genmanifests -small-mtp, issue 27)
// spends its time. Without the variable it does nothing.
func TestLintFile(t *testing.T) {
	path := os.Getenv("MESHGUARD_LINT_FILE")
	if path == "" {
		t.Skip("MESHGUARD_LINT_FILE not set")
	}
	code := run([]string{"lint", "--progress=never", "-o", "json", path}, streams{in: nil, out: io.Discard, err: io.Discard})
	if code != exitOK && code != exitFindings {
		t.Fatalf("exit %d", code)
	}
}
