package lint

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// tree writes files (relative path → content) under a new temporary directory
// and returns it with symlinks resolved, so expected paths compare as written.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for rel, content := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func obj(name string) string {
	return "apiVersion: v1\nkind: A\nmetadata: {name: " + name + "}\n"
}

// loadWithin loads paths and fails the test if that takes more than a few
// seconds: a FIFO opened for reading blocks until a writer comes, forever.
func loadWithin(t *testing.T, paths ...string) []Document {
	t.Helper()
	done := make(chan []Document, 1)
	go func() { done <- Load(paths, nil) }()
	select {
	case docs := <-done:
		return docs
	case <-time.After(10 * time.Second):
		t.Fatalf("Load(%v) hangs", paths)
		return nil
	}
}

// rel makes the File of each view relative to root, for short tables.
func rel(t *testing.T, root string, docs []Document) []docView {
	t.Helper()
	out := view(t, docs)
	for i := range out {
		if r, err := filepath.Rel(root, out[i].File); err == nil && !strings.HasPrefix(r, "..") {
			out[i].File = filepath.ToSlash(r)
		}
	}
	return out
}

func TestLoadSymlinks(t *testing.T) {
	const secret = "GITHUB_TOKEN=ghp_secret"
	tests := []struct {
		name  string
		setup func(t *testing.T, root string) []string // returns the PATHs
		want  []docView
	}{{
		name: "PATH that is a symlink to a directory is followed",
		setup: func(t *testing.T, root string) []string {
			symlink(t, filepath.Join(root, "real"), filepath.Join(root, "link"))
			return []string{filepath.Join(root, "link")}
		},
		want: []docView{{File: "link/a.yaml", Line: 1, Kind: "A", Name: "a"}, {File: "link/sub/b.yaml", Line: 1, Kind: "A", Name: "b"}},
	}, {
		name: "PATH that is a symlink to a file is followed",
		setup: func(t *testing.T, root string) []string {
			symlink(t, filepath.Join(root, "real/a.yaml"), filepath.Join(root, "file.yaml"))
			return []string{filepath.Join(root, "file.yaml")}
		},
		want: []docView{{File: "file.yaml", Line: 1, Kind: "A", Name: "a"}},
	}, {
		name: "links inside the tree that stay within the PATHs are followed, each file once",
		setup: func(t *testing.T, root string) []string {
			symlink(t, "../other/c.yaml", filepath.Join(root, "real/c.yaml"))
			symlink(t, "../other", filepath.Join(root, "real/zz"))
			symlink(t, "a.yaml", filepath.Join(root, "real/again.yaml"))
			return []string{filepath.Join(root, "real"), filepath.Join(root, "other")}
		},
		want: []docView{
			{File: "real/a.yaml", Line: 1, Kind: "A", Name: "a"},
			{File: "real/c.yaml", Line: 1, Kind: "A", Name: "c"},
			{File: "real/sub/b.yaml", Line: 1, Kind: "A", Name: "b"},
			{File: "real/zz/d.yaml", Line: 1, Kind: "A", Name: "d"},
		},
	}, {
		name: "links that leave the PATHs are refused and not read",
		setup: func(t *testing.T, root string) []string {
			symlink(t, "../../outside/env.yaml", filepath.Join(root, "real/sub/env.yaml"))
			symlink(t, "../outside", filepath.Join(root, "real/dir"))
			symlink(t, "../outside/env.yaml", filepath.Join(root, "real/notes.txt")) // not a manifest name: never read
			return []string{filepath.Join(root, "real")}
		},
		want: []docView{
			{File: "real/a.yaml", Line: 1, Kind: "A", Name: "a"},
			{File: "real/dir", Err: "outside/env.yaml"}, // placeholder, replaced below
			{File: "real/sub/b.yaml", Line: 1, Kind: "A", Name: "b"},
			{File: "real/sub/env.yaml", Err: "points outside the PATHs given; not read"},
		},
	}, {
		name: "loops are reported, not followed",
		setup: func(t *testing.T, root string) []string {
			symlink(t, "..", filepath.Join(root, "real/sub/up"))
			symlink(t, "y.yaml", filepath.Join(root, "real/x.yaml"))
			symlink(t, "x.yaml", filepath.Join(root, "real/y.yaml"))
			return []string{filepath.Join(root, "real")}
		},
		want: []docView{
			{File: "real/a.yaml", Line: 1, Kind: "A", Name: "a"},
			{File: "real/sub/b.yaml", Line: 1, Kind: "A", Name: "b"},
			{File: "real/sub/up", Err: "points to a directory that contains it (a loop); not followed"},
			{File: "real/x.yaml", Err: "is a loop of symlinks"},
			{File: "real/y.yaml", Err: "is a loop of symlinks"},
		},
	}, {
		name: "overlapping PATHs read each file once",
		setup: func(t *testing.T, root string) []string {
			r := filepath.Join(root, "real")
			return []string{r, filepath.Join(r, "a.yaml"), r + "/./sub/", filepath.Join(root, "other", "..", "real")}
		},
		want: []docView{{File: "real/a.yaml", Line: 1, Kind: "A", Name: "a"}, {File: "real/sub/b.yaml", Line: 1, Kind: "A", Name: "b"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tree(t, map[string]string{
				"real/a.yaml": obj("a"), "real/sub/b.yaml": obj("b"),
				"other/c.yaml": obj("c"), "other/d.yaml": obj("d"),
				"outside/env.yaml": secret + "\n" + obj("secret"),
			})
			paths := tt.setup(t, root)
			docs := loadWithin(t, paths...)
			for i, d := range docs {
				if d.Object != nil && d.Object.GetName() == "secret" || d.Err != nil && strings.Contains(d.Err.Error(), secret) {
					t.Errorf("document %d shows the file outside the roots: %v %v", i, d.Object, d.Err)
				}
			}
			got := rel(t, root, docs)
			for i := range tt.want {
				if tt.want[i].File == "real/dir" {
					tt.want[i].Err = "symlink " + filepath.Join(root, "real/dir") + " -> " + filepath.Join(root, "outside") + " points outside the PATHs given"
				}
			}
			if diff := cmp.Diff(tt.want, got, errContains()); diff != "" {
				t.Errorf("Load(%v) (-want +got):\n%s", paths, diff)
			}
		})
	}
}

// TestLoadOnlyRegularFiles: a FIFO named *.yaml, in a directory or named (or
// linked to) as a PATH, is an error at once, never a hang.
func TestLoadOnlyRegularFiles(t *testing.T) {
	root := tree(t, map[string]string{"dir/a.yaml": obj("a")})
	fifo := filepath.Join(root, "dir/pipe.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	symlink(t, fifo, filepath.Join(root, "link.yaml"))
	got := rel(t, root, loadWithin(t, filepath.Join(root, "dir"), filepath.Join(root, "link.yaml")))
	want := []docView{
		{File: "dir/a.yaml", Line: 1, Kind: "A", Name: "a"},
		{File: "dir/pipe.yaml", Err: "is not a regular file (a named pipe); only regular files are read"},
		{File: "link.yaml", Err: "is not a regular file (a named pipe)"},
	}
	if diff := cmp.Diff(want, got, errContains()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := CheckPaths([]string{filepath.Join(root, "link.yaml")}); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("CheckPaths(FIFO) = %v, want a named-pipe error", err)
	}
}

// TestLoadSizeLimitFirst: a file past MaxFileBytes is refused from its size,
// before a byte of it is parsed (a sparse 100 MB file costs nothing to make).
func TestLoadSizeLimitFirst(t *testing.T) {
	root := tree(t, map[string]string{"dir/big.yaml": ""})
	big := filepath.Join(root, "dir/big.yaml")
	if err := os.Truncate(big, 100<<20); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got := rel(t, root, loadWithin(t, filepath.Join(root, "dir")))
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("refusing a 100 MB file took %v", took)
	}
	want := []docView{{File: "dir/big.yaml", Err: "file is larger than 64 MiB (104857600 bytes)"}}
	if diff := cmp.Diff(want, got, errContains()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	f, err := os.Open(big)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stdin := Load([]string{"-"}, f)
	if len(stdin) != 1 || stdin[0].Err == nil || !strings.Contains(stdin[0].Err.Error(), "larger than 64 MiB") {
		t.Errorf("a 100 MB file on standard input: %+v", stdin)
	}
	if err := CheckPaths([]string{big}); err == nil || !strings.Contains(err.Error(), "larger than 64 MiB") {
		t.Errorf("CheckPaths(100 MB) = %v", err)
	}
}

func TestCheckPaths(t *testing.T) {
	root := tree(t, map[string]string{"dir/a.yaml": obj("a")})
	symlink(t, "nowhere.yaml", filepath.Join(root, "dangling.yaml"))
	symlink(t, "loop2", filepath.Join(root, "loop1"))
	symlink(t, "loop1", filepath.Join(root, "loop2"))
	symlink(t, "dir", filepath.Join(root, "linkdir"))
	tests := []struct {
		path string
		want string // "" when fine
	}{
		{"dir", ""},
		{"dir/a.yaml", ""},
		{"linkdir", ""},
		{"-", ""},
		{"missing.yaml", "PATH " + filepath.Join(root, "missing.yaml") + ": no such file or directory"},
		{"dangling.yaml", "is a symlink to a file that does not exist"},
		{"loop1", "is a loop of symlinks"},
	}
	for _, tt := range tests {
		p := tt.path
		if p != "-" {
			p = filepath.Join(root, p)
		}
		err := CheckPaths([]string{p})
		if got := errString(err); tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("CheckPaths(%s) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestRootsContains(t *testing.T) {
	r := &Roots{real: []string{"/repo/policies", "/repo/one.yaml"}}
	for path, want := range map[string]bool{
		"/repo/policies": true, "/repo/policies/a.yaml": true, "/repo/policies/x/y": true,
		"/repo/one.yaml": true, "/repo/policies-old/a.yaml": false, "/repo": false, "/etc/passwd": false,
	} {
		if got := r.Contains(path); got != want {
			t.Errorf("Contains(%s) = %v, want %v", path, got, want)
		}
	}
}
