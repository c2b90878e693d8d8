package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/meshguard/meshguard/api"
)

// TestRulesFileFresh fails when a kind was added to (or removed from) the registry
// without regenerating the chart's rules, which would leave the new kind unguarded.
func TestRulesFileFresh(t *testing.T) {
	path := filepath.Join("..", "..", DefaultOutput)
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := Render(api.DefaultRegistry()); !bytes.Equal(got, want) {
		t.Fatalf("%s is stale; run `go run ./hack/gen-chart-rules` from the repository root", DefaultOutput)
	}
}
