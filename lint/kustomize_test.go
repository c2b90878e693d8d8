package lint

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/meshguard/meshguard/api"
)

const testRenders = "testdata/render/"

// renderedView is the comparable part of a Document that may come from a build.
type renderedView struct {
	File, Kind, Name, Namespace string
	Line                        int
	By                          string
	RenderedLine                int
	Err                         string // substring of the error, "" when fine
}

func renderedViews(docs []Document) []renderedView {
	out := make([]renderedView, 0, len(docs))
	for _, d := range docs {
		v := renderedView{File: filepath.ToSlash(d.File), Line: d.Line}
		if d.Object != nil {
			v.Kind, v.Name, v.Namespace = d.Object.GetKind(), d.Object.GetName(), d.Object.GetNamespace()
		}
		if d.Err != nil {
			v.Err = d.Err.Error()
		}
		if d.Rendered != nil {
			v.By, v.RenderedLine = filepath.ToSlash(d.Rendered.By), d.Rendered.Line
		}
		out = append(out, v)
	}
	return out
}

// errSubstring compares Err by substring, the rest exactly.
var errSubstring = cmp.Comparer(func(a, b renderedView) bool {
	ea, eb := a.Err, b.Err
	a.Err, b.Err = "", ""
	return a == b && (ea == eb || (ea != "" && eb != "" && (strings.Contains(ea, eb) || strings.Contains(eb, ea))))
})

func TestLoadKustomize(t *testing.T) {
	const (
		tree      = testRenders + "tree/"
		base      = tree + "base/timeout.yaml"
		baseKust  = tree + "base/kustomization.yaml"
		prodKust  = tree + "overlays/prod/kustomization.yaml"
		notK8s    = "not a Kubernetes object (no apiVersion and no kind)"
		unusedWhy = "in kustomization directory " + tree + "overlays/prod but no kustomization build uses it"
	)
	prod := renderedView{File: base, Line: 2, Kind: "MeshTimeout", Name: "prod-frontend-to-backend", Namespace: "frontend-ns", By: prodKust, RenderedLine: 1}
	baseOwn := renderedView{File: base, Line: 2, Kind: "MeshTimeout", Name: "frontend-to-backend", Namespace: "frontend-ns", By: baseKust, RenderedLine: 1}
	retry := renderedView{File: tree + "raw/retry.yaml", Line: 2, Kind: "MeshRetry", Name: "frontend-retry", Namespace: "frontend-ns"}
	values := Skip{File: tree + "charts/app/values.yaml", Line: 2, Reason: notK8s}
	unused := Skip{File: tree + "overlays/prod/unused.yaml", Reason: unusedWhy}
	tests := []struct {
		name      string
		paths     []string
		kustomize bool
		want      []renderedView
		skipped   []Skip
	}{
		{"overlay: one render of base plus patch, unused file noted", []string{tree + "overlays/prod"}, true,
			[]renderedView{prod}, []Skip{unused}},
		{"kustomization file named explicitly renders its directory", []string{prodKust}, true,
			[]renderedView{prod}, nil},
		{"tree: every root once, raw files outside roots, values skipped", []string{tree}, true,
			[]renderedView{baseOwn, prod, retry}, []Skip{values, unused}},
		{"kustomization-only directory renders a base elsewhere", []string{testRenders + "only-kustomization"}, true,
			[]renderedView{{File: base, Line: 2, Kind: "MeshTimeout", Name: "frontend-to-backend", Namespace: "payments-ns",
				By: testRenders + "only-kustomization/kustomization.yaml", RenderedLine: 1}}, nil},
		{"broken kustomization is an error on its file", []string{testRenders + "broken"}, true,
			[]renderedView{{File: testRenders + "broken/kustomization.yaml", Line: 1, Err: "kustomize build " + testRenders + "broken failed: accumulating resources"}}, nil},
		{"component is built only through its user", []string{testRenders + "component-user"}, true,
			[]renderedView{{File: testRenders + "component-user/retry.yaml", Line: 1, Kind: "MeshRetry", Name: "retry", Namespace: "frontend-ns",
				By: testRenders + "component-user/kustomization.yaml", RenderedLine: 1}},
			[]Skip{{File: testRenders + "component-user/comp/kustomization.yaml", Line: 1, Reason: "kustomize Component: linted as part of the kustomizations that use it, not on its own"}}},
		{"--no-kustomize: files as they are", []string{tree}, false,
			[]renderedView{
				{File: baseKust, Line: 1, Kind: "Kustomization"},
				{File: base, Line: 2, Kind: "MeshTimeout", Name: "frontend-to-backend", Namespace: "frontend-ns"},
				{File: tree + "overlays/prod/add-from.yaml", Line: 1, Kind: "MeshTimeout", Name: "frontend-to-backend", Namespace: "frontend-ns"},
				{File: tree + "overlays/prod/unused.yaml", Line: 2, Kind: "MeshTimeout", Name: "leftover"},
				retry,
			},
			[]Skip{values, {File: prodKust, Line: 3, Reason: notK8s}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LoadAll(tt.paths, nil, LoadOptions{Kustomize: tt.kustomize})
			if diff := cmp.Diff(tt.want, renderedViews(got.Docs), errSubstring); diff != "" {
				t.Errorf("docs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.skipped, got.Skipped, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			for _, d := range got.Docs {
				if d.Object != nil && d.Object.GetAnnotations()["config.kubernetes.io/origin"] != "" {
					t.Errorf("%s: origin annotation meshguard added reached the linter", d.Object.GetName())
				}
			}
		})
	}
}

// TestLintRendered: the overlay's patch is what makes the policy invalid, so
// the finding points at the patch, names the overlay and the output line.
func TestLintRendered(t *testing.T) {
	opts := Options{Settings: api.DefaultSettings(), Namespace: "default", Registry: api.DefaultRegistry()}
	tests := []struct {
		name  string
		paths []string
		want  []string // file:line code field by:renderedLine
	}{
		{"overlay with a bad patch", []string{testRenders + "tree"}, []string{
			testRenders + "tree/overlays/prod/add-from.yaml:7 MG102 spec.from by " + testRenders + "tree/overlays/prod/kustomization.yaml:7",
		}},
		{"base alone is clean", []string{testRenders + "tree/base"}, nil},
		{"component patch rendered clean", []string{testRenders + "component-user"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, sum := Lint(LoadAll(tt.paths, nil, LoadOptions{Kustomize: true}).Docs, opts)
			var got []string
			for _, f := range fs {
				got = append(got, fmt.Sprintf("%s:%d %s %s by %s:%d", f.File, f.Line, f.Code, f.Field, f.RenderedBy, f.RenderedLine))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if sum.Errors != len(tt.want) {
				t.Errorf("summary %+v, want %d errors", sum, len(tt.want))
			}
		})
	}
}

// TestRenderMatchesKustomize: what meshguard lints is what `kubectl kustomize`
// prints, object for object; the origin annotations it switches on are gone.
func TestRenderMatchesKustomize(t *testing.T) {
	for _, dir := range []string{"tree/base", "tree/overlays/prod", "only-kustomization", "component-user"} {
		t.Run(dir, func(t *testing.T) {
			dir := testRenders + dir
			m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
			if err != nil {
				t.Fatal(err)
			}
			out, err := m.AsYaml()
			if err != nil {
				t.Fatal(err)
			}
			var want, got []map[string]any
			for _, d := range LoadBytes("kubectl-kustomize", out) {
				want = append(want, d.Object.Object)
			}
			for _, d := range LoadAll([]string{dir}, nil, LoadOptions{Kustomize: true}).Docs {
				got = append(got, d.Object.Object)
			}
			if len(want) == 0 {
				t.Fatal("kustomize rendered nothing")
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("rendered objects differ from kustomize's (-kustomize +meshguard):\n%s", diff)
			}
		})
	}
}

// TestUserOriginAnnotationsKept: a kustomization that asks for origin
// annotations itself gets them in the output, and provenance still works.
func TestUserOriginAnnotationsKept(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "kustomization.yaml", "resources: [cm.yaml]\nbuildMetadata: [originAnnotations]\n")
	write(t, dir, "cm.yaml", "# a comment\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: b\n")
	docs := LoadAll([]string{dir}, nil, LoadOptions{Kustomize: true}).Docs
	if len(docs) != 1 || docs[0].Object == nil {
		t.Fatalf("want one object, got %+v", docs)
	}
	d := docs[0]
	if got := d.Object.GetAnnotations()["config.kubernetes.io/origin"]; !strings.Contains(got, "path: cm.yaml") {
		t.Errorf("origin annotation = %q, want the one the user asked for", got)
	}
	if d.File != filepath.Join(dir, "cm.yaml") || d.LineOf("data.a") != 7 {
		t.Errorf("provenance %s:%d, want cm.yaml:7", d.File, d.LineOf("data.a"))
	}
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWithOriginAnnotations(t *testing.T) {
	const line = "buildMetadata: [originAnnotations]\n"
	tests := []struct {
		name      string
		in        string
		want      string // "" when the file must stay as it is
		userAsked bool
	}{
		{"appended", "resources:\n  - a.yaml\n", "resources:\n  - a.yaml\n" + line, false},
		{"no final newline", "resources: [a.yaml]", "resources: [a.yaml]\n" + line, false},
		{"block scalar at the end", "patches:\n  - patch: |-\n      x: 1\n", "patches:\n  - patch: |-\n      x: 1\n" + line, false},
		{"user asked already", "resources: [a.yaml]\nbuildMetadata:\n  - originAnnotations\n", "", true},
		{"other build metadata", "resources: [a.yaml]\nbuildMetadata: [managedByLabel]\n", "", false},
		{"flow mapping", "{resources: [a.yaml]}\n", "", false},
		{"trailing document marker", "resources: [a.yaml]\n---\n", "", false},
		{"two documents", "resources: [a.yaml]\n---\nb: 1\n", "", false},
		{"document end marker", "resources: [a.yaml]\n...\n", "", false},
		{"broken YAML", "resources: [a.yaml\n", "", false},
		{"empty", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, added, asked := withOriginAnnotations([]byte(tt.in))
			want := tt.want
			if want == "" {
				want = tt.in
			}
			if string(out) != want || added != (tt.want != "") || asked != tt.userAsked {
				t.Errorf("got %q added=%v asked=%v, want %q added=%v asked=%v", out, added, asked, want, tt.want != "", tt.userAsked)
			}
		})
	}
}

// TestKustomizeTimeout: a remote resource that never answers makes the build an
// error after the timeout instead of a hang. The stuck build's renderer process
// is killed, so the next kustomization still builds.
func TestKustomizeTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	dir := t.TempDir()
	write(t, dir, "a/kustomization.yaml", "resources: ["+srv.URL+"/policy.yaml]\n")
	write(t, dir, "b/kustomization.yaml", "resources: [cm.yaml]\n")
	write(t, dir, "b/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n")
	start := time.Now()
	docs := LoadAll([]string{dir}, nil, LoadOptions{Kustomize: true, RenderTimeout: 2 * time.Second, Render: RenderOptions{AllowRemote: true}}).Docs
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("LoadAll took %v", el)
	}
	got := renderedViews(docs)
	want := []renderedView{
		{File: filepath.Join(dir, "a/kustomization.yaml"), Line: 1, Err: "timed out after 2s"},
		{File: filepath.Join(dir, "b/cm.yaml"), Kind: "ConfigMap", Name: "cm", Line: 1, By: filepath.Join(dir, "b/kustomization.yaml"), RenderedLine: 1},
	}
	if diff := cmp.Diff(want, got, errSubstring); diff != "" {
		t.Errorf("docs (-want +got):\n%s", diff)
	}
}

// TestLintKustomizeDot: `meshguard lint .` inside an overlay renders it, and
// findings name files relative to where the user stands.
func TestLintKustomizeDot(t *testing.T) {
	t.Chdir(testRenders + "tree/overlays/prod")
	loaded := LoadAll([]string{"."}, nil, LoadOptions{Kustomize: true})
	fs, _ := Lint(loaded.Docs, Options{Settings: api.DefaultSettings(), Namespace: "default", Registry: api.DefaultRegistry()})
	var got []string
	for _, f := range fs {
		got = append(got, fmt.Sprintf("%s:%d %s by %s", f.File, f.Line, f.Code, f.RenderedBy))
	}
	for _, d := range loaded.Docs {
		got = append(got, "doc "+d.File)
	}
	want := []string{"add-from.yaml:7 MG102 by kustomization.yaml", "doc ../../base/timeout.yaml"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
