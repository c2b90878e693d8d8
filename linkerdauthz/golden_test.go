package linkerdauthz

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestGolden renders testdata/seed.yaml as a table and as JSON and compares with the
// golden files; go test ./authz -update rewrites them after an intended change.
func TestGolden(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "seed.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ps := Build(objects(t, string(in)), Options{})
	for _, g := range []struct {
		file   string
		render func(*bytes.Buffer) error
	}{
		{"seed.table.golden.txt", func(b *bytes.Buffer) error { return RenderTable(b, ps) }},
		{"seed.golden.json", func(b *bytes.Buffer) error { return RenderJSON(b, ps) }},
	} {
		var got bytes.Buffer
		if err := g.render(&got); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", g.file)
		if *update {
			if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./authz -update)", err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s differs, rerun with -update if intended:\n%s", g.file, got.String())
		}
	}
}
