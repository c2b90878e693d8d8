package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// docView is the comparable part of a Document.
type docView struct {
	File    string
	Index   int
	Line    int
	Kind    string
	Name    string
	Err     string // substring of the error, "" when fine
	ErrLine int
}

func view(t *testing.T, docs []Document) []docView {
	t.Helper()
	out := make([]docView, 0, len(docs))
	for _, d := range docs {
		if (d.Object == nil) == (d.Err == nil) {
			t.Errorf("%s #%d: want exactly one of Object and Err, got %v and %v", d.File, d.Index, d.Object, d.Err)
		}
		v := docView{File: filepath.ToSlash(d.File), Index: d.Index, Line: d.Line, ErrLine: d.ErrLine}
		if d.Object != nil {
			v.Kind, v.Name = d.Object.GetKind(), d.Object.GetName()
		}
		if d.Err != nil {
			v.Err = d.Err.Error()
		}
		out = append(out, v)
	}
	return out
}

// errContains lets the tables state only the important part of a message.
func errContains() cmp.Option {
	return cmp.Comparer(errMatches)
}

func errMatches(a, b docView) bool {
	ea, eb := a.Err, b.Err
	a.Err, b.Err = "", ""
	if a != b {
		return false
	}
	if ea == "" || eb == "" {
		return ea == eb
	}
	return strings.Contains(ea, eb) || strings.Contains(eb, ea)
}

func TestLoadFiles(t *testing.T) {
	const dir = "testdata/load/"
	tests := []struct {
		name    string
		path    string
		want    []docView
		skipped []Skip
	}{
		{"multi-document with broken, empty and non-Kubernetes documents", "multi.yaml", []docView{
			{Index: 0, Line: 3, Kind: "MeshTimeout", Name: "first"},
			{Index: 1, Line: 16, Err: "invalid YAML: did not find expected ',' or ']'", ErrLine: 21},
			{Index: 2, Line: 23, Kind: "MeshRetry", Name: "after-broken"},
			{Index: 3, Line: 31, Err: "document is a scalar (str), not an object", ErrLine: 31},
			{Index: 4, Line: 33, Kind: "ConfigMap", Name: "after-end-marker"},
		}, []Skip{{Line: 28, Reason: "not a Kubernetes object (no apiVersion and no kind)"}}},
		{"List and XxxList expanded, one line per item", "list.yaml", []docView{
			{Index: 0, Line: 4, Kind: "MeshTimeout", Name: "item-0"},
			{Index: 1, Line: 11, Kind: "MeshTimeout", Name: "nested-item"},
			{Index: 2, Line: 15, Err: "list item has no 'apiVersion'", ErrLine: 15},
			{Index: 3, Line: 18, Err: "list item is a scalar (int)", ErrLine: 18},
		}, nil},
		{"JSON object", "policy.json", []docView{
			{Index: 0, Line: 1, Kind: "MeshTrafficPermission", Name: "json-mtp"},
		}, nil},
		{"JSON array of objects", "array.json", []docView{
			{Index: 0, Line: 2, Kind: "MeshTimeout", Name: "array-0"},
			{Index: 1, Line: 3, Kind: "MeshRetry", Name: "array-1"},
			{Index: 2, Line: 8, Err: "list item is a scalar (str)", ErrLine: 8},
		}, nil},
		{"missing file", "nope.yaml", []docView{
			{Index: 0, Err: "no such file or directory"},
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range tt.want {
				tt.want[i].File = dir + tt.path
			}
			for i := range tt.skipped {
				tt.skipped[i].File = dir + tt.path
			}
			loaded := LoadAll([]string{dir + tt.path}, nil, LoadOptions{})
			if diff := cmp.Diff(tt.want, view(t, loaded.Docs), errContains()); diff != "" {
				t.Errorf("Load(%s) (-want +got):\n%s", tt.path, diff)
			}
			if diff := cmp.Diff(tt.skipped, loaded.Skipped, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Load(%s) skipped (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}

func TestLoadDirectory(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".git/config.yaml", "broken: [")
	write("z/.cache/x.yml", "broken: [")
	write("z/inner.yml", "apiVersion: v1\nkind: A\nmetadata: {name: z-inner}\n")
	write("b.yaml", "apiVersion: v1\nkind: A\nmetadata: {name: b}\n")
	write("a/a.json", `{"apiVersion": "v1", "kind": "A", "metadata": {"name": "a-a"}}`)
	write("README.md", "# not a manifest")

	got := view(t, Load([]string{root}, nil))
	want := []docView{
		{File: "a/a.json", Line: 1, Kind: "A", Name: "a-a"},
		{File: "b.yaml", Line: 1, Kind: "A", Name: "b"},
		{File: "z/inner.yml", Line: 1, Kind: "A", Name: "z-inner"},
	}
	for i := range want {
		want[i].File = filepath.ToSlash(filepath.Join(root, want[i].File))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Load(dir) (-want +got):\n%s", diff)
	}
}

func TestLoadTestdataTreeAndStdin(t *testing.T) {
	stdin := strings.NewReader("apiVersion: v1\nkind: A\nmetadata:\n  name: from-stdin\n")
	got := view(t, Load([]string{"testdata/load/tree", "-", "testdata/load/tree/notes.txt"}, stdin))
	want := []docView{
		{File: "testdata/load/tree/a.yaml", Line: 1, Kind: "MeshTimeout", Name: "tree-a"},
		{File: "testdata/load/tree/b.json", Line: 1, Kind: "MeshRetry", Name: "tree-b"},
		{File: "testdata/load/tree/sub/c.yml", Line: 1, Kind: "MeshTimeout", Name: "tree-c"},
		{File: "testdata/load/tree/sub/deeper/D.YAML", Line: 1, Kind: "MeshTimeout", Name: "tree-d"},
		{File: StdinName, Line: 1, Kind: "A", Name: "from-stdin"},
	}
	if diff := cmp.Diff(want, got, errContains()); diff != "" {
		t.Errorf("Load (-want +got):\n%s", diff)
	}
	// A file named explicitly is read whatever its extension; this one is not a
	// Kubernetes object, so it is skipped with a note rather than an error.
	skipped := LoadAll([]string{"testdata/load/tree/notes.txt"}, nil, LoadOptions{}).Skipped
	wantSkip := []Skip{{File: "testdata/load/tree/notes.txt", Line: 1, Reason: "not a Kubernetes object (no apiVersion and no kind)"}}
	if diff := cmp.Diff(wantSkip, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

func TestLoadBytes(t *testing.T) {
	const head = "apiVersion: v1\nkind: A\n"
	tests := []struct {
		name string
		in   string
		want []docView
	}{
		{"empty input", "", nil},
		{"only comments and markers", "# a\n---\n# b\n--- # c\n...\n\n", nil},
		{"null document skipped", "--- null\n---\n" + head, []docView{{Line: 3, Kind: "A"}}},
		{"byte order mark and CRLF", "\xef\xbb\xbf" + "apiVersion: v1\r\nkind: A\r\n---\r\napiVersion: v1\r\nkind: B\r\n",
			[]docView{{Line: 1, Kind: "A"}, {Index: 1, Line: 4, Kind: "B"}}},
		{"directive belongs to the next document", "%YAML 1.1\n---\n" + head, []docView{{Line: 3, Kind: "A"}}},
		{"content on the marker line", "--- {apiVersion: v1, kind: A}\n--- {apiVersion: v1, kind: B}\n",
			[]docView{{Line: 1, Kind: "A"}, {Index: 1, Line: 2, Kind: "B"}}},
		{"marker-like text inside a value", head + "data:\n  x: |\n    ---\n    ...\n", []docView{{Line: 1, Kind: "A"}}},
		{"kind not a string", "apiVersion: v1\nkind: [A]\n", []docView{{Line: 1, Err: "'kind' must be a string", ErrLine: 1}}},
		{"empty kind", "apiVersion: v1\nkind: ''\n", []docView{{Line: 1, Err: "empty 'kind'", ErrLine: 1}}},
		{"no kind", "apiVersion: v1\n", []docView{{Line: 1, Err: "document has no 'kind'", ErrLine: 1}}},
		{"no apiVersion", "kind: A\n", []docView{{Line: 1, Err: "document has no 'apiVersion'", ErrLine: 1}}},
		{"neither apiVersion nor kind: skipped", "replicaCount: 2\n---\n" + head, []docView{{Line: 3, Kind: "A"}}},
		{"top-level sequence of non-objects: skipped", "- name: build\n- name: test\n", nil},
		{"List item with neither stays an error", "apiVersion: v1\nkind: List\nitems:\n- metadata: {name: x}\n",
			[]docView{{Line: 4, Err: "list item has no 'apiVersion'", ErrLine: 4}}},
		{"duplicate key", head + "metadata:\n  name: a\n  name: b\n", []docView{{Line: 1, Err: `mapping key "name" is defined twice`, ErrLine: 5}}},
		{"not a number JSON can hold", head + "spec:\n  x: .inf\n", []docView{{Line: 1, Err: "not a number JSON can hold", ErrLine: 4}}},
		{"complex key", head + "spec:\n  ? [a]\n  : b\n", []docView{{Line: 1, Err: "keys must be scalars", ErrLine: 4}}},
		{"unknown anchor", head + "spec: *nope\n", []docView{{Line: 1, Err: "unknown anchor 'nope'", ErrLine: 3}}},
		{"empty List", "apiVersion: v1\nkind: List\nitems: []\n", nil},
		{"List without items is empty", "apiVersion: v1\nkind: List\n", nil},
		{"List with null items is empty", "apiVersion: v1\nkind: FooList\nitems: ~\n", nil},
		{"List with items not a list", "apiVersion: v1\nkind: FooList\nitems: {a: 1}\n", []docView{{Line: 1, Err: "'items' of a FooList must be a list", ErrLine: 1}}},
		{"kind ending in List without items is an object", "apiVersion: v1\nkind: AllowList\n", []docView{{Line: 1, Kind: "AllowList"}}},
		{"nested sequence", "- - apiVersion: v1\n", []docView{{Line: 1, Err: "list item is a list", ErrLine: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range tt.want {
				tt.want[i].File = "in.yaml"
			}
			got := view(t, LoadBytes("in.yaml", []byte(tt.in)))
			if diff := cmp.Diff(tt.want, got, errContains(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("LoadBytes(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestLoadValues(t *testing.T) {
	in := `apiVersion: v1
kind: A
spec:
  str: hello
  quoted: "123"
  int: 42
  hex: 0x10
  under: 1_000
  big: 18446744073709551615
  float: 1.5
  bool: true
  nothing: ~
  date: 2001-12-14
  stamp: 2001-12-14T21:59:43.10-05:00
  tagged: !!str 7
  binary: !!binary aGVsbG8=
  custom: !thing value
  1: int key
  true: bool key
  ~: null key
  base: &base {a: 1, b: 2}
  merged:
    <<: [*base, {c: 3, a: 0}]
    b: 20
`
	docs := LoadBytes("v.yaml", []byte(in))
	if len(docs) != 1 || docs[0].Err != nil {
		t.Fatalf("want one good document, got %+v", docs)
	}
	want := map[string]any{
		"str": "hello", "quoted": "123", "int": int64(42), "hex": int64(16), "under": int64(1000),
		"big": float64(18446744073709551615), "float": 1.5, "bool": true, "nothing": nil,
		"date": "2001-12-14", "stamp": "2001-12-14T21:59:43.10-05:00", "tagged": "7",
		"binary": "aGVsbG8=", "custom": "value", "1": "int key", "true": "bool key", "null": "null key",
		"base":   map[string]any{"a": int64(1), "b": int64(2)},
		"merged": map[string]any{"a": int64(1), "b": int64(20), "c": int64(3)},
	}
	got := docs[0].Object.Object["spec"].(map[string]any)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	// Aliased values are copies: mutating one must not change the other.
	got["base"].(map[string]any)["a"] = int64(99)
	if got["merged"].(map[string]any)["a"] != int64(1) {
		t.Error("alias expansion shares maps between anchor and alias")
	}
	// DeepCopy panics on types unstructured does not support.
	_ = docs[0].Object.DeepCopy()
}

// TestLineBreaks: lines are counted as yaml.v3 counts them (CR, NEL, LS and PS
// are line breaks too), so documents after such breaks get consistent lines.
func TestLineBreaks(t *testing.T) {
	for name, br := range map[string]string{"LF": "\n", "CRLF": "\r\n", "CR": "\r", "NEL": "\u0085", "LS": "\u2028", "PS": "\u2029"} {
		t.Run(name, func(t *testing.T) {
			in := strings.Join([]string{"# c", "apiVersion: v1", "kind: A", "metadata:", "  name: a", "---", "apiVersion: v1", "kind: B", "metadata:", "  name: b", ""}, br)
			docs := LoadBytes("b.yaml", []byte(in))
			var got []int
			for _, d := range docs {
				if d.Err != nil {
					t.Fatalf("%v", d.Err)
				}
				got = append(got, d.Line, d.LineOf("metadata.name"))
			}
			if diff := cmp.Diff([]int{2, 5, 7, 10}, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}
