package schema

import (
	"io/fs"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestLoadOnManyGoroutinesIsLoadOnOne: compiling a release's files in parallel
// gives the set one goroutine gives, kind for kind, for both meshes.
func TestLoadOnManyGoroutinesIsLoadOnOne(t *testing.T) {
	releases := []string{"kuma-2.14", "linkerd-edge-26.8.3"}
	prev := runtime.GOMAXPROCS(1)
	one, err := Load(releases...)
	runtime.GOMAXPROCS(max(prev, 4))
	many, err2 := Load(releases...)
	runtime.GOMAXPROCS(prev)
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	if !reflect.DeepEqual(one.Kinds(), many.Kinds()) {
		t.Fatalf("kinds differ:\n%v\n%v", one.Kinds(), many.Kinds())
	}
	for _, gvk := range one.Kinds() {
		a, b := one.kinds[gvk], many.kinds[gvk]
		if !reflect.DeepEqual(a.structural, b.structural) || a.deprecated != b.deprecated || (a.checkers().cel == nil) != (b.checkers().cel == nil) {
			t.Errorf("%v compiled differently", gvk)
		}
	}
	if _, err := Load("kuma-0.1"); err == nil || !strings.Contains(err.Error(), "no CRDs for") {
		t.Errorf("unknown release: %v", err)
	}
}

// TestEveryReleaseChecks: loading a release builds only the structural schemas;
// the validators and CEL programs of a kind are built when it is first checked
// (or by BuildCheckers), and those of every embedded kind build.
func TestEveryReleaseChecks(t *testing.T) {
	s, err := Load(releaseNames()...)
	if err != nil {
		t.Fatal(err)
	}
	for gvk, c := range s.kinds {
		if c.built.Load() != nil {
			t.Errorf("%v: validators built by Load", gvk)
		}
	}
	const mtp = "meshtrafficpermissions.kuma.io"
	if err := s.BuildCheckers(mtp); err != nil {
		t.Fatal(err)
	}
	for gvk, c := range s.kinds {
		if s.Built(gvk) != (c.crd.name == mtp) {
			t.Errorf("%v (%s): built %v after BuildCheckers(%s)", gvk, c.crd.name, s.Built(gvk), mtp)
		}
	}
	// The hash is computed when first asked for; every embedded CRD has one.
	for gvk, c := range s.kinds {
		if c.crd.crd == nil {
			t.Errorf("%v: hashed by Load, before anyone asked", gvk)
		}
	}
	for gvk, c := range s.kinds {
		if e := c.crd.embeddedCRD(); len(e.Hash) != 64 {
			t.Errorf("%v (%s): SchemaHash %q", gvk, e.Name, e.Hash)
		}
	}
	if err := s.BuildCheckers(); err != nil {
		t.Fatal(err)
	}
	for gvk, c := range s.kinds {
		if k := c.built.Load(); k == nil || k.err != nil || k.trees == nil {
			t.Errorf("%v: validators not built: %+v", gvk, k)
		}
	}
}

// TestSources: every embedded release names the repository and tag (or commit) it
// was taken from, which `meshguard version` prints; the ones of this test are
// checked by value, and a release added later needs only its SOURCE.md.
func TestSources(t *testing.T) {
	want := map[string]string{"kuma-2.13": "kumahq/kuma v2.13.10", "kuma-2.14": "kumahq/kuma v2.14.3",
		"kuma-3.0-preview":    "kumahq/kuma 348b6528bc234b3c4bd7f22ad7c5bf950d6149fc",
		"linkerd-edge-26.8.3": "linkerd/linkerd2 edge-26.8.3", "linkerd-version-2.18": "linkerd/linkerd2 version-2.18",
		"linkerd-version-2.19": "linkerd/linkerd2 version-2.19", "linkerd-version-2.20": "linkerd/linkerd2 version-2.20",
		// Linkerd's bundle of Gateway API v1.1.1, then the Gateway API's own tags.
		"gateway-api-v1.1.1": "linkerd/linkerd2 edge-26.8.3", "gateway-api-v1.2.1": "kubernetes-sigs/gateway-api v1.2.1",
		"gateway-api-v1.3.0": "kubernetes-sigs/gateway-api v1.3.0", "gateway-api-v1.4.1": "kubernetes-sigs/gateway-api v1.4.1",
		"gateway-api-v1.5.1": "kubernetes-sigs/gateway-api v1.5.1"}
	for _, r := range Releases() {
		got := Source(r)
		if w, ok := want[r]; (ok && got != w) || got == "" {
			t.Errorf("Source(%q) = %q, want %q", r, got, w)
		}
	}
	if got := Source("kuma-9.99"); got != "" {
		t.Errorf("Source of an unknown release = %q", got)
	}
	m := sourceRef.FindStringSubmatch("Kuma's main branch (kumahq/kuma, commit 0123abcd, `deployments/`)")
	if m == nil || m[1] != "kumahq/kuma" || m[2] != "0123abcd" {
		t.Errorf("a commit pin reads as %q", m)
	}
}

// TestReleasesAreData: every directory under crds/ is a release, and so is each
// release a directory's ALSO file names (one it shares), with no list in code to
// edit; the ones of this test are there.
func TestReleasesAreData(t *testing.T) {
	entries, err := fs.ReadDir(embedded, "crds")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
			also, _ := fs.ReadFile(embedded, "crds/"+e.Name()+"/ALSO")
			dirs = append(dirs, strings.Fields(string(also))...)
		}
	}
	slices.Sort(dirs)
	if got := Releases(); !slices.Equal(got, dirs) {
		t.Errorf("Releases() = %v, the directories are %v", got, dirs)
	}
	for _, r := range []string{"kuma-2.13", "kuma-2.14", "linkerd-edge-26.8.3", "linkerd-version-2.19", "linkerd-version-2.20"} {
		if !slices.Contains(dirs, r) {
			t.Errorf("release %s is not embedded", r)
		}
	}
}
