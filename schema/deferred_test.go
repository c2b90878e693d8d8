package schema

import (
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
	if err := s.Defer("linkerd-edge-26.8.3", "policy.linkerd.io", "gateway.networking.k8s.io"); err != nil {
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
	eager, _ := Load("kuma-2.14", "linkerd-edge-26.8.3")
	if a, b := len(s.Kinds()), len(eager.Kinds()); a != b {
		t.Errorf("deferred set lists %d kinds, eager %d", a, b)
	}
}
