package api

import (
	"slices"
	"testing"
)

// TestPrivilegedUsersFollowSystemNamespace: the control plane's account is the one
// of the configured system namespace, the built-ins come first, extras are added
// once.
func TestPrivilegedUsersFollowSystemNamespace(t *testing.T) {
	got := PrivilegedUsers("mesh-system", []string{"kds", "", GarbageCollectorUser, "kds"})
	want := []string{"system:serviceaccount:mesh-system:kuma-control-plane", GarbageCollectorUser, NamespaceControllerUser, "kds"}
	if !slices.Equal(got, want) {
		t.Errorf("PrivilegedUsers = %q, want %q", got, want)
	}
	if slices.Contains(got, "system:serviceaccount:kuma-system:kuma-control-plane") {
		t.Error("kuma-system's account trusted with system namespace mesh-system")
	}
}
