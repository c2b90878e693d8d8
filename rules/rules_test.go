package rules

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

var update = flag.Bool("update", false, "rewrite examples/invalid/ and examples/linkerd/invalid/ from rules/examples/invalid/")

// TestCatalogueLoads: the embedded catalogue parses, and every example
// directory belongs to a listed code (an example of a code that was renamed or
// dropped would otherwise never run).
func TestCatalogueLoads(t *testing.T) {
	rs, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) < 100 {
		t.Fatalf("%d rules, want every code", len(rs))
	}
	entries, err := fs.ReadDir(files, "examples")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := Lookup(e.Name()); !ok && e.Name() != "invalid" {
			t.Errorf("examples/%s: no such code in catalogue.yaml", e.Name())
		}
	}
	for _, r := range rs {
		if got, ok := Lookup(r.Code); !ok || got != r {
			t.Errorf("Lookup(%s) = %+v, %v", r.Code, got, ok)
		}
	}
	if _, ok := Lookup("MG999"); ok {
		t.Error("Lookup found MG999")
	}
}

// TestMeshMatchesExamples: a code said to be about one mesh has a bad example
// about that mesh's objects, so the field cannot drift from what the code checks.
func TestMeshMatchesExamples(t *testing.T) {
	groups := map[string][]string{MeshKuma: {"kuma.io"}, MeshLinkerd: {"linkerd.io", "gateway.networking.k8s.io"}}
	meshes := map[string]int{}
	for _, r := range Catalogue() {
		meshes[r.Mesh]++
		if gs := groups[r.Mesh]; len(gs) > 0 && !slices.ContainsFunc(gs, func(g string) bool { return strings.Contains(r.Bad, g) }) {
			t.Errorf("%s is about %s, but its bad example names nothing of %v", r.Code, r.Mesh, gs)
		}
	}
	if meshes[MeshKuma] == 0 || meshes[MeshLinkerd] == 0 || meshes[""] == 0 {
		t.Errorf("codes per mesh %v: want some of each", meshes)
	}
}

// TestParseRefusesMalformedCatalogues names the entry and field of each mistake.
func TestParseRefusesMalformedCatalogues(t *testing.T) {
	ex := func(code string) fstest.MapFS {
		return fstest.MapFS{"examples/" + code + "/bad.yaml": {Data: []byte("a: 1\n")}, "examples/" + code + "/good.yaml": {Data: []byte("a: 2\n")}}
	}
	cases := []struct{ name, catalogue, want string }{
		{"unknown field", "- code: MG001\n  severity: error\n  summary: s\n  sumary: t\n", "unknown field"},
		{"severity", "- code: MG001\n  severity: fatal\n  summary: s\n", "catalogue.yaml[0] (MG001).severity"},
		{"mesh", "- code: MG001\n  severity: error\n  mesh: istio\n  summary: s\n", "(MG001).mesh"},
		{"code", "- code: XX1\n  severity: error\n  summary: s\n", "catalogue.yaml[0] (XX1).code"},
		{"no summary", "- code: MG001\n  severity: error\n", "(MG001).summary"},
		{"order", "- code: MG001\n  severity: error\n  summary: s\n- code: MG001\n  severity: error\n  summary: s\n", "catalogue.yaml[1] (MG001).code: after MG001"},
		{"example", "- code: MG002\n  severity: error\n  summary: s\n", "MG002: every code has a bad and a good example"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fsys := ex("MG001")
			fsys["catalogue.yaml"] = &fstest.MapFile{Data: []byte(c.catalogue)}
			_, err := parse(fsys)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("parse error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestInvalidExamplesInSync: examples/invalid/ and examples/linkerd/invalid/ are
// generated from rules/examples/invalid/ (`make docs`, or go test ./rules -update),
// so there is one source; this fails when a copy drifts or a file there has no
// source.
func TestInvalidExamplesInSync(t *testing.T) {
	invs, err := InvalidExamples()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, inv := range invs {
		want[inv.Path] = true
		p := filepath.Join("..", filepath.FromSlash(inv.Path))
		if *update {
			if err := os.WriteFile(p, []byte(inv.Body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := os.ReadFile(p); err != nil || string(got) != inv.Body {
			t.Errorf("%s differs from rules/examples/invalid (%v): edit the source there and run `make docs`", inv.Path, err)
		}
	}
	for _, dir := range InvalidDirs() {
		found, _ := filepath.Glob(filepath.Join("..", filepath.FromSlash(dir), "*"))
		for _, f := range found {
			rel := filepath.ToSlash(strings.TrimPrefix(f, ".."+string(filepath.Separator)))
			if !want[rel] {
				t.Errorf("%s has no source in rules/examples/invalid: move it there", rel)
			}
		}
	}
}

// BenchmarkParse is the one-time cost of reading the embedded catalogue, paid by
// the first door in a process that asks for a rule (docs/performance.md).
func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parse(files); err != nil {
			b.Fatal(err)
		}
	}
}
