package main

import (
	"bytes"
	"encoding/json"
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWrite(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/meshguard/meshguard", Version: "v1.0.0"},
		Deps: []*debug.Module{
			{Path: "github.com/spf13/cobra", Version: "v1.10.2"},
			{Path: "example.com/old", Version: "v0.1.0", Replace: &debug.Module{Path: "example.com/fork", Version: "v0.1.1"}},
		},
		Settings: []debug.BuildSetting{{Key: "CGO_ENABLED", Value: "0"}}}
	var buf bytes.Buffer
	if err := write(&buf, bi); err != nil {
		t.Fatal(err)
	}
	var got bom
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := bom{BOMFormat: "CycloneDX", SpecVersion: "1.5", Version: 1, Components: []component{
		{Type: "library", Name: "github.com/spf13/cobra", Version: "v1.10.2", PURL: "pkg:golang/github.com/spf13/cobra@v1.10.2"},
		{Type: "library", Name: "example.com/fork", Version: "v0.1.1", PURL: "pkg:golang/example.com/fork@v0.1.1"},
	}}
	want.Metadata.Component = component{Type: "application", Name: "github.com/meshguard/meshguard", Version: "v1.0.0", PURL: "pkg:golang/github.com/meshguard/meshguard@v1.0.0"}
	want.Metadata.Properties = []bomProperty{{"go:version", "go1.26.8"}, {"go:build:CGO_ENABLED", "0"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// A checkout build has no module version: no purl rather than a false one.
	if c := module(&debug.Module{Path: "m", Version: "(devel)"}, "application"); c.PURL != "" {
		t.Errorf("devel module got purl %q", c.PURL)
	}
}
