package main

import (
	"os"
	"strings"
	"testing"
)

// TestDiffProfileArgs runs `meshguard diff` in process with the arguments in
// MESHGUARD_DIFF_ARGS (space-separated, e.g. "-o json OLD/ NEW/"), so that
// `go test -cpuprofile` or `-memprofile` can show where the diff of two large
// inputs (issue 29's 5,000-proxy pair, docs/performance.md) spends its time and
// memory; it logs the bytes the run allocated and the collections it took (-v),
// which unlike CPU seconds do not depend on the machine's load. Without the
// variable it does nothing.
func TestDiffProfileArgs(t *testing.T) {
	a := os.Getenv("MESHGUARD_DIFF_ARGS")
	if a == "" {
		t.Skip("MESHGUARD_DIFF_ARGS not set")
	}
	profileRun(t, append([]string{"diff"}, strings.Fields(a)...), exitOK)
}
