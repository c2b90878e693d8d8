package kumainspect

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/meshguard/meshguard/api"
)

// effectsOf reads a file into a store and judges mesh default.
func effectsOf(t *testing.T, path string) (*Effects, map[string]Object) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	objs, err := Decode(f, path, api.DefaultRegistry())
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStore(objs, api.DefaultRegistry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.Effects(context.Background(), "default", EffectsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Object{}
	for _, o := range objs {
		byName[o.GetName()] = o
	}
	return e, byName
}

// TestEffects: what each policy of a small mesh does on its two proxies, as
// the cross-policy findings read it.
func TestEffects(t *testing.T) {
	e, objs := effectsOf(t, "testdata/effects/mesh.yaml")
	if e.Proxies != 2 || e.Truncated || e.Namespaces[""] != 2 {
		t.Fatalf("proxies %d truncated %v namespaces %v", e.Proxies, e.Truncated, e.Namespaces)
	}
	want := map[string]*PolicyEffect{
		"mt-a":        {Selects: []string{"backend-1", "web-1"}, Merged: true, Decides: true},
		"mt-b":        {Selects: []string{"backend-1", "web-1"}, Merged: true, OverriddenBy: []string{"mt-a"}},
		"mt-ghost":    nil,
		"web-retries": {Selects: []string{"web-1"}, Merged: true, Decides: true, Unreached: []int{1}},
		"allow-all": {Selects: []string{"backend-1", "web-1"}, Merged: true, Decides: true,
			FromIgnored: []Inbound{{Dataplane: "backend-1", Port: 8080, By: []string{"backend-rules"}}}},
		"backend-rules": {Selects: []string{"backend-1"}, Merged: true, Decides: true,
			Hides: []Inbound{{Dataplane: "backend-1", Port: 8080, By: []string{"allow-all"}}}},
	}
	for name, w := range want {
		got := e.Of(objs[name])
		if diff := cmp.Diff(w, got, cmpopts.IgnoreUnexported(PolicyEffect{}), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

// TestManifestDataplaneNamespace: a Dataplane manifest without Kuma's namespace
// label is in its metadata namespace, so a workload-owner policy of that
// namespace selects it (the label is what Kuma's Kubernetes store adds).
func TestManifestDataplaneNamespace(t *testing.T) {
	in := `apiVersion: kuma.io/v1alpha1
kind: Mesh
metadata: {name: default}
---
apiVersion: kuma.io/v1alpha1
kind: Dataplane
mesh: default
metadata: {name: backend-1, namespace: shop, labels: {app: backend}}
spec:
  networking:
    address: 10.0.0.2
    inbound: [{port: 8080, name: http, tags: {kuma.io/service: backend, kuma.io/protocol: http}}]
---
apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: t, namespace: shop, labels: {kuma.io/policy-role: workload-owner}}
spec:
  targetRef: {kind: Dataplane, labels: {app: backend}}
  rules: [{default: {http: {requestTimeout: 10s}}}]
`
	objs, err := Decode(strings.NewReader(in), "in.yaml", api.DefaultRegistry())
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStore(objs, api.DefaultRegistry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.View("default", "backend-1.shop")
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Selecting) != 1 || v.Selecting[0].Name != "t.shop" {
		t.Errorf("selecting %v, want t.shop", v.Selecting)
	}
}

// TestEffectsFocus: asked about one policy, Effects judges only the proxies it
// selects, and its answer about that policy is the whole-mesh answer.
func TestEffectsFocus(t *testing.T) {
	whole, objs := effectsOf(t, "testdata/effects/mesh.yaml")
	f, err := os.Open("testdata/effects/mesh.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	all, err := Decode(f, "mesh.yaml", api.DefaultRegistry())
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStore(all, api.DefaultRegistry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mt-a", "mt-b", "mt-ghost", "web-retries", "allow-all", "backend-rules"} {
		e, err := s.Effects(context.Background(), "default", EffectsOptions{Focus: []Object{objs[name]}})
		if err != nil {
			t.Fatal(err)
		}
		if e.Proxies != 2 {
			t.Errorf("%s: %d proxies counted, want the mesh's 2", name, e.Proxies)
		}
		if diff := cmp.Diff(whole.Of(objs[name]), e.Of(objs[name]), cmpopts.IgnoreUnexported(PolicyEffect{}), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: focused answer differs (-whole +focused):\n%s", name, diff)
		}
	}
}

// TestManifestDataplaneMesh: a Dataplane manifest names its mesh in the top-level
// mesh field, as Kuma reads it, not (only) in the kuma.io/mesh label.
func TestManifestDataplaneMesh(t *testing.T) {
	in := `apiVersion: kuma.io/v1alpha1
kind: Mesh
metadata: {name: other}
---
apiVersion: kuma.io/v1alpha1
kind: Dataplane
mesh: other
metadata: {name: backend-1, namespace: shop}
spec:
  networking:
    address: 10.0.0.2
    inbound: [{port: 8080, name: http, tags: {kuma.io/service: backend}}]
`
	objs, err := Decode(strings.NewReader(in), "in.yaml", api.DefaultRegistry())
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStore(objs, api.DefaultRegistry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.View("other", "backend-1.shop"); err != nil {
		t.Errorf("the Dataplane is not in mesh other: %v", err)
	}
}
