package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKustomizeMemoryBound: a kustomize build runs in the renderer process
// under --render-max-memory (RLIMIT_AS), as a Helm render does: a generator
// that blows a 24 MiB file up into a ConfigMap (read, encoded, copied) is an
// input error naming the flag; with room the same build gets through the
// render (and then meets the loader's bound for one document).
func TestKustomizeMemoryBound(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "kustomization.yaml", "configMapGenerator:\n- name: big\n  files: [blob.txt]\n")
	if err := os.WriteFile(filepath.Join(dir, "blob.txt"), []byte(strings.Repeat("x", 24<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	kfile := filepath.Join(dir, "kustomization.yaml")
	for _, tc := range []struct {
		memory int64
		want   string
	}{{64 << 20, "--render-max-memory"}, {4 << 30, "document is larger than"}} {
		got := LoadAll([]string{dir}, nil, LoadOptions{Kustomize: true,
			Render: RenderOptions{MaxMemory: tc.memory, MaxBytes: 256 << 20}})
		e := errorsOf(t, got, "")[kfile]
		if !strings.Contains(e, tc.want) {
			t.Errorf("max memory %d MiB: error %q, want one with %q", tc.memory>>20, e, tc.want)
		}
	}
}
