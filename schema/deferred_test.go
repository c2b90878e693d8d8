package schema

import (
	"reflect"
	"testing"

	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
)

// TestDeferredRelease: a deferred release is compiled on the first lookup in one of
// its groups and answers as an eagerly loaded one; other groups never compile it.
func TestDeferredRelease(t *testing.T) {
	s, err := Load("kuma-2.14")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Defer("linkerd-nope", "policy.linkerd.io"); err == nil {
		t.Error("an unknown release was deferred")
	}
	if err := s.Defer("linkerd-edge-26.8.3", "policy.linkerd.io"); err != nil {
		t.Fatal(err)
	}
	if err := s.Defer("gateway-api-v1.1.1", "gateway.networking.k8s.io"); err != nil {
		t.Fatal(err)
	}
	if s.Knows(k8sschema.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "Server"}) || s.deferred[0].kinds != nil {
		t.Error("a kuma.io lookup compiled the deferred release")
	}
	if !s.Knows(k8sschema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1alpha2", Kind: "TLSRoute"}) {
		t.Error("the deferred release does not serve TLSRoute")
	}
	if err := s.DeferredErr(); err != nil {
		t.Fatal(err)
	}
	eager, _ := Load("kuma-2.14", "linkerd-edge-26.8.3", "gateway-api-v1.1.1")
	if a, b := len(s.Kinds()), len(eager.Kinds()); a != b {
		t.Errorf("deferred set lists %d kinds, eager %d", a, b)
	}
}

// TestDeferredKindCompilesItsFileOnly: a deferred Kuma release compiles only the CRD
// file of the kind looked up (every one of its kinds is found by its file name), and
// every kind of both releases, looked up in a fresh deferred set, has the schema
// the eager Load gives.
func TestDeferredKindCompilesItsFileOnly(t *testing.T) {
	eager, err := Load("kuma-2.14", "linkerd-edge-26.8.3", "gateway-api-v1.1.1")
	if err != nil {
		t.Fatal(err)
	}
	for _, gvk := range eager.Kinds() {
		s, err := Load()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Defer("kuma-2.14", "kuma.io"); err != nil {
			t.Fatal(err)
		}
		if err := s.Defer("linkerd-edge-26.8.3", "policy.linkerd.io"); err != nil {
			t.Fatal(err)
		}
		if err := s.Defer("gateway-api-v1.1.1", "gateway.networking.k8s.io"); err != nil {
			t.Fatal(err)
		}
		c := s.lookup(gvk)
		if c == nil {
			t.Errorf("%v: not found deferred", gvk)
			continue
		}
		if !reflect.DeepEqual(c.structural, eager.kinds[gvk].structural) || c.deprecated != eager.kinds[gvk].deprecated {
			t.Errorf("%v: compiled differently deferred", gvk)
		}
		if gvk.Group != "kuma.io" {
			continue
		}
		kuma := s.deferred[0]
		compiled := 0
		for _, f := range kuma.files {
			if f.kinds != nil {
				compiled++
			}
		}
		if compiled != 1 || kuma.kinds != nil {
			t.Errorf("%v: %d files compiled, whole release %v; want its file only", gvk, compiled, kuma.kinds != nil)
		}
		if s.lookup(gvk) != c {
			t.Errorf("%v: a second lookup gives another schema", gvk)
		}
	}
	s, _ := Load()
	_ = s.Defer("kuma-2.14", "kuma.io")
	if s.Knows(k8sschema.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshNope"}) || s.deferred[0].kinds == nil {
		t.Error("an unknown kind: not looked for in the whole release")
	}
}
