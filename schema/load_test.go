package schema

import (
	"reflect"
	"runtime"
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
		if s.Built(gvk) != (c.crd.Name == mtp) {
			t.Errorf("%v (%s): built %v after BuildCheckers(%s)", gvk, c.crd.Name, s.Built(gvk), mtp)
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

// TestSources: every embedded release names the repository and tag it was taken
// from (the 3.0 preview, the commit of Kuma's main branch it is pinned to), which
// `meshguard version` prints.
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
		if got := Source(r); got != want[r] {
			t.Errorf("Source(%q) = %q, want %q", r, got, want[r])
		}
	}
	if got := Source("kuma-9.99"); got != "" {
		t.Errorf("Source of an unknown release = %q", got)
	}
}
