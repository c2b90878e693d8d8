// Command sbom writes a CycloneDX 1.5 JSON software bill of materials for a Go binary,
// from the module list the go tool embeds in it (what `go version -m` prints). It
// needs no network and no other tool, and its output depends only on the binary, so
// release SBOMs are as reproducible as the binaries.
//
//	go run ./hack/sbom BINARY [VERSION] > meshguard.cdx.json
//
// VERSION names the application's release when the binary was built from a checkout
// (its module version is then "(devel)"; release builds set the version by -ldflags).
package main

import (
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

// component is a CycloneDX component: one Go module.
type component struct {
	Type    string `json:"type"`
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	PURL    string `json:"purl,omitempty"`
}

// bom is the part of a CycloneDX document meshguard fills in.
type bom struct {
	BOMFormat   string `json:"bomFormat"`
	SpecVersion string `json:"specVersion"`
	Version     int    `json:"version"`
	Metadata    struct {
		Component  component     `json:"component"`
		Properties []bomProperty `json:"properties,omitempty"`
	} `json:"metadata"`
	Components []component `json:"components"`
}

type bomProperty struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: sbom BINARY [VERSION]")
		os.Exit(2)
	}
	bi, err := buildinfo.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "sbom: %v\n", err)
		os.Exit(1)
	}
	if len(os.Args) == 3 {
		bi.Main.Version = os.Args[2]
	}
	if err := write(os.Stdout, bi); err != nil {
		fmt.Fprintf(os.Stderr, "sbom: %v\n", err)
		os.Exit(1)
	}
}

// module turns a Go module into a component, following a replace directive to the
// module actually built in.
func module(m *debug.Module, typ string) component {
	if m.Replace != nil {
		m = m.Replace
	}
	c := component{Type: typ, Name: m.Path, Version: m.Version}
	if m.Version != "" && m.Version != "(devel)" {
		c.PURL = "pkg:golang/" + m.Path + "@" + m.Version
	}
	return c
}

// write encodes bi's modules, in the order the go tool recorded them (sorted by path).
func write(w io.Writer, bi *debug.BuildInfo) error {
	var b bom
	b.BOMFormat, b.SpecVersion, b.Version = "CycloneDX", "1.5", 1
	b.Metadata.Component = module(&bi.Main, "application")
	b.Metadata.Properties = append(b.Metadata.Properties, bomProperty{"go:version", bi.GoVersion})
	for _, s := range bi.Settings {
		b.Metadata.Properties = append(b.Metadata.Properties, bomProperty{"go:build:" + s.Key, s.Value})
	}
	b.Components = []component{}
	for _, d := range bi.Deps {
		b.Components = append(b.Components, module(d, "library"))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(b)
}
