package main

import (
	"io"
	"os"
	"runtime"
	"slices"
	"testing"
)

// TestLintFile runs `meshguard lint --progress=never -o json FILE` in process on
// the file named by MESHGUARD_LINT_FILE, so that `go test -cpuprofile` or
// `-memprofile` can show where a large run (hack/genmanifests -small-mtp, issue 27)
// spends its time; it logs the bytes the run allocated and the collections it
// took (-v), which unlike CPU seconds do not depend on the machine's load.
// Without the variable it does nothing.
func TestLintFile(t *testing.T) {
	path := os.Getenv("MESHGUARD_LINT_FILE")
	if path == "" {
		t.Skip("MESHGUARD_LINT_FILE not set")
	}
	profileRun(t, []string{"lint", "--progress=never", "-o", "json", path}, exitOK, exitFindings)
}

// profileRun runs meshguard with args in process for the profiling harnesses
// (TestLintFile, TestDiffProfileArgs, TestMapProfileFile), fails unless it exits
// with one of ok, and logs what the run allocated and the collections it took:
// figures that, unlike CPU seconds, do not depend on the machine's load.
func profileRun(t *testing.T, args []string, ok ...int) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code := run(args, streams{out: io.Discard, err: io.Discard})
	runtime.ReadMemStats(&after)
	if !slices.Contains(ok, code) {
		t.Fatalf("exit %d", code)
	}
	t.Logf("allocated %d MiB in %d objects, %d collections, heap peak (HeapSys) %d MiB",
		(after.TotalAlloc-before.TotalAlloc)>>20, after.Mallocs-before.Mallocs, after.NumGC-before.NumGC, after.HeapSys>>20)
}
