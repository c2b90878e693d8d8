package api

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// literalExempt are the directories whose code may spell kinds: api itself.
var literalExempt = []string{"api"}

// TestNoKindLiteralsOutsideAPI keeps the registry the only list of kinds: no Go
// file outside api/ (tests aside) has a string literal that is a registered kind,
// a targetRef kind, a known Kuma or Linkerd resource, a workload kind or a group.
func TestNoKindLiteralsOutsideAPI(t *testing.T) {
	names := map[string]bool{KumaGroup: true, LinkerdGroup: true, GatewayGroup: true,
		KindNamespace: true, KindServiceAccount: true, KindHTTPRoute: true, KindGRPCRoute: true}
	for _, k := range DefaultRegistry().Kinds() {
		names[k.Kind] = true
	}
	for _, r := range AllRefKinds() {
		names[string(r)] = true
	}
	for _, n := range append(KnownKumaResources(), KnownLinkerdResources()...) {
		names[n] = true
	}
	for _, w := range workloads {
		names[w.gvk.Kind] = true
	}
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			for _, ex := range literalExempt {
				if rel == ex {
					return filepath.SkipDir
				}
			}
			if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && names[s] {
				t.Errorf("%s: kind or group %q spelled outside api/; use the api constant or a registry accessor", fset.Position(lit.Pos()), s)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
