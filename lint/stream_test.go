package lint

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
)

// TestRunMatchesLint: streaming the input (Run) gives exactly the findings and
// summary of loading it whole and linting it (Lint), cross-document stages
// included, on the repository's examples, a large generated file with broken
// documents, and standard input.
func TestRunMatchesLint(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.Write(policyStream(600))
	b.WriteString("---\nkind: [broken\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: team-1}\n")
	b.WriteString("---\napiVersion: policy.linkerd.io/v1beta3\nkind: Server\nmetadata: {name: a, namespace: team-1}\nspec: {podSelector: {}, port: 8080}\n")
	b.WriteString("---\napiVersion: policy.linkerd.io/v1beta3\nkind: Server\nmetadata: {name: b, namespace: team-1}\nspec: {podSelector: {}, port: 8080}\n")
	for i := range 300 {
		fmt.Fprintf(&b, "---\napiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata: {name: p%d, namespace: team-%d}\nspec:\n  targetRef: {kind: Mesh}\n  from:\n    - targetRef: {kind: MeshSubset, tags: {kuma.io/service: c%d}}\n      default: {action: Allow}\n    - targetRef: {kind: Mesh}\n      default: {action: Deny}\n", i, i%3, i%7)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	stdin := "apiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata: {name: p1, namespace: team-1}\nspec:\n  targetRef: {kind: Mesh}\n  from:\n    - targetRef: {kind: Mesh}\n      default: {action: Allow}\n"
	paths := []string{filepath.Join("..", "examples"), big, "-", filepath.Join(dir, "missing.yaml")}
	s := api.DefaultSettings()
	o := Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry(), Stages: CrossDocument(s, "default")}

	gotF, _ := runMatchesLint(t, paths, stdin, LoadOptions{}, o)
	// With rendering: kustomize builds and Helm renders stream as whole units,
	// their skips are reported, and each render has its own cross-document stages.
	rendered := []string{filepath.Join("testdata", "render", "tree"), filepath.Join("testdata", "render", "envs"), big}
	if _, sum := runMatchesLint(t, rendered, "", LoadOptions{Kustomize: true, Helm: true}, o); sum.Skipped == 0 {
		t.Errorf("rendering the test trees skipped nothing: %+v", sum)
	}
	codes := map[string]int{}
	for _, f := range gotF {
		codes[f.Code]++
	}
	for _, c := range []string{"MG000", "MG201", "MG202", "MG350"} {
		if codes[c] == 0 {
			t.Errorf("no %s finding: the comparison does not cover it (%v)", c, codes)
		}
	}
}

// TestStreamKeepsOrder: results reach use in input order however the workers
// finish.
func TestStreamKeepsOrder(t *testing.T) {
	var b bytes.Buffer
	for i := range 2000 {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\n", i)
	}
	next := 0
	Stream([]string{"-"}, &b, LoadOptions{}, func(d *Document) string { return d.Object.GetName() }, func(name string) {
		if want := fmt.Sprintf("c%d", next); name != want {
			t.Fatalf("got %s, want %s", name, want)
		}
		next++
	})
	if next != 2000 {
		t.Fatalf("%d documents", next)
	}
}

// runMatchesLint checks that Run over paths gives what LoadAll and Lint give, with
// one progress call per document, and returns Run's result.
func runMatchesLint(t *testing.T, paths []string, stdin string, lo LoadOptions, o Options) ([]Finding, Summary) {
	t.Helper()
	loaded := LoadAll(paths, strings.NewReader(stdin), lo)
	wantF, wantS := Lint(loaded.Docs, o)
	wantS.Skipped = len(loaded.Skipped)
	calls := 0
	gotF, gotS, skipped := Run(paths, strings.NewReader(stdin), lo, o, func(n int) {
		calls++
		if n != calls {
			t.Fatalf("progress %d at call %d", n, calls)
		}
	})
	if d := cmp.Diff(wantF, gotF); d != "" {
		t.Fatalf("findings (-Lint +Run):\n%s", d)
	}
	if d := cmp.Diff(loaded.Skipped, skipped); d != "" {
		t.Fatalf("skipped (-LoadAll +Run):\n%s", d)
	}
	if wantS != gotS || calls != gotS.Documents {
		t.Fatalf("summary %+v, want %+v; %d progress calls", gotS, wantS, calls)
	}
	return gotF, gotS
}
