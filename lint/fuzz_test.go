package lint

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// seedFiles adds every testdata manifest to a fuzz corpus.
func seedFiles(f *testing.F, add func([]byte)) {
	f.Helper()
	paths, _ := filepath.Glob("testdata/load/*")
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			add(data)
		}
	}
}

// FuzzLoad feeds arbitrary bytes through the loader as one file: it must never
// panic or hang, and every Document must carry exactly one of Object and Err.
func FuzzLoad(f *testing.F) {
	seedFiles(f, func(b []byte) { f.Add(b) })
	for _, s := range []string{
		"", "---", "...\n---\n", "%YAML 1.1\n---\na: 1\n", "a: &a [*a]\n", "[{kind: List, items: [1]}]",
		"apiVersion: v1\nkind: List\nitems:\n- <<: {apiVersion: v1, kind: A}\n", "? [a]\n: b\n", "a: !!int x\n",
		"apiVersion: v1\nkind: A\nx: .nan\n", "- - - -\n", "{\"a\":\n---\n1}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		docs := LoadBytes("fuzz.yaml", data)
		if el := time.Since(start); el > 10*time.Second {
			t.Fatalf("LoadBytes took %v on %d bytes", el, len(data))
		}
		for i, d := range docs {
			if (d.Object == nil) == (d.Err == nil) {
				t.Fatalf("document %d: want exactly one of Object and Err: %+v", i, d)
			}
			if d.Index != i || d.File != "fuzz.yaml" {
				t.Fatalf("document %d: Index %d File %q", i, d.Index, d.File)
			}
			if d.Err != nil {
				continue
			}
			if d.Line < 1 || d.Object.GetKind() == "" || d.Object.GetAPIVersion() == "" {
				t.Fatalf("document %d: Line %d kind %q apiVersion %q", i, d.Line, d.Object.GetKind(), d.Object.GetAPIVersion())
			}
			_ = d.Object.DeepCopy() // panics on values unstructured cannot hold
			if _, err := d.Object.MarshalJSON(); err != nil {
				t.Fatalf("document %d does not serialise as JSON: %v", i, err)
			}
			d.LineOf("metadata.labels[kuma.io/mesh]")
			d.LineOf("spec.to[0].targetRef.namespace")
		}
	})
}

// FuzzLineOf maps arbitrary field paths in a fuzzed document: never panics, and
// the line is always within the document's file.
func FuzzLineOf(f *testing.F) {
	lines, err := os.ReadFile("testdata/load/lineof.yaml")
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range []string{"", "spec.to[1].targetRef.namespace", "metadata.labels[kuma.io/mesh]", "a[x]y].b", "[", "]]", "spec.rules[0].default.allow[2].spiffeId.value", "spec.to[1].targetRef.name"} {
		f.Add(lines, p)
	}
	f.Add([]byte("apiVersion: v1\nkind: A\na: &a {b: *a, <<: *a}\n"), "a.b.b.b.b.c")
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		total := countLines(data) + 1
		for _, d := range LoadBytes("fuzz.yaml", data) {
			if got := d.LineOf(path); got < 0 || got > total {
				t.Fatalf("LineOf(%q) = %d outside 0..%d", path, got, total)
			}
			if d.Err == nil && d.LineOf(path) < d.Line && path != "" {
				// Merged keys and aliases may point before the document's own line,
				// but never before the file's first line.
				if d.LineOf(path) < 1 {
					t.Fatalf("LineOf(%q) = %d", path, d.LineOf(path))
				}
			}
		}
	})
}
