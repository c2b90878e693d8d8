package main

import (
	"os"
	"strings"
	"testing"
)

// TestMapProfileFile runs `meshguard map -o json FILE` (or the arguments in
// MESHGUARD_MAP_ARGS, space-separated, before FILE) in process on the file named
// by MESHGUARD_MAP_FILE, so that `go test -cpuprofile` or `-memprofile` can show
// where a large map (hack/bench/map-scale.sh, issue 31) spends its time and
// memory; it logs the bytes the run allocated and the collections it took (-v),
// which unlike CPU seconds do not depend on the machine's load. Without the
// variable it does nothing.
func TestMapProfileFile(t *testing.T) {
	path := os.Getenv("MESHGUARD_MAP_FILE")
	if path == "" {
		t.Skip("MESHGUARD_MAP_FILE not set")
	}
	args := []string{"map", "-o", "json"}
	if a := os.Getenv("MESHGUARD_MAP_ARGS"); a != "" {
		args = append([]string{"map"}, strings.Fields(a)...)
	}
	profileRun(t, append(args, path), exitOK)
}
