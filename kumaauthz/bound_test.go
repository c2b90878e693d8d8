package kumaauthz

import (
	"strings"
	"testing"
)

// TestMaxGroupItems: a group with more merged items than Options.MaxGroupItems is
// named with its policies but not compiled (FormSkipped, no RBAC, a warning that
// says why), at the bound it is compiled, and 0 means no bound. Other groups of
// the same call are compiled as usual.
func TestMaxGroupItems(t *testing.T) {
	ps := policiesFromYAML(t, `
kind: MeshTrafficPermission
metadata: {name: mesh-wide, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from: [{targetRef: {kind: Mesh}, default: {action: Deny}}]
---
kind: MeshTrafficPermission
metadata: {name: big, namespace: kuma-system}
spec:
  targetRef: {kind: MeshService, name: backend}
  from:
  - {targetRef: {kind: MeshService, name: a}, default: {action: Allow}}
  - {targetRef: {kind: MeshService, name: b}, default: {action: Allow}}
  - {targetRef: {kind: MeshService, name: c}, default: {action: Deny}}
`)
	group := func(previews []Preview, scope string) Preview {
		t.Helper()
		for _, pv := range previews {
			if strings.Contains(pv.Scope, scope) {
				return pv
			}
		}
		t.Fatalf("no preview for %s in %d", scope, len(previews))
		return Preview{}
	}
	for _, tc := range []struct {
		max     int
		skipped bool
	}{{0, false}, {4, false}, {3, true}, {1, true}} {
		previews, err := BuildPreviews(ps, Options{MaxGroupItems: tc.max})
		if err != nil {
			t.Fatal(err)
		}
		// The backend group merges the mesh-wide item and big's three.
		backend := group(previews, "backend")
		if got := backend.Form == FormSkipped; got != tc.skipped {
			t.Fatalf("MaxGroupItems %d: backend group form %q, skipped = %v, want %v", tc.max, backend.Form, got, tc.skipped)
		}
		if !tc.skipped {
			if backend.RBAC == nil || len(backend.Items) != 4 {
				t.Errorf("MaxGroupItems %d: compiled group has RBAC %v and %d items", tc.max, backend.RBAC, len(backend.Items))
			}
			continue
		}
		if backend.RBAC != nil || len(backend.Items) != 0 || len(backend.Policies) != 2 {
			t.Errorf("skipped group: RBAC %v, %d items, policies %v", backend.RBAC, len(backend.Items), backend.Policies)
		}
		if len(backend.Warnings) != 1 || !strings.Contains(backend.Warnings[0], "4 items (up to 0 tags each) to merge exceed the bound") {
			t.Errorf("skipped group warnings %q", backend.Warnings)
		}
		lines := Summary(backend)
		if len(lines) < 2 || !strings.Contains(lines[0], "(skipped; not compiled here)") || !strings.Contains(lines[1], "exceed the bound") {
			t.Errorf("summary of a skipped group: %q", lines)
		}
		if _, err := MarshalJSONCompact(previews); err != nil {
			t.Errorf("a skipped group does not render: %v", err)
		}
		// The mesh-wide group has one item, within every bound here.
		if mesh := group(previews, "all proxies"); mesh.Form == FormSkipped {
			t.Errorf("MaxGroupItems %d: mesh-wide group skipped", tc.max)
		}
	}
}

// TestOverBound: items weigh 1 + their tags, against twice the bound.
func TestOverBound(t *testing.T) {
	for _, tc := range []struct {
		items, tags, bound int
		over               bool
	}{
		{1990, 1, 2000, false}, {2001, 1, 2000, true}, {2000, 0, 2000, false}, {2001, 0, 2000, true},
		{180, 20, 2000, false}, {191, 20, 2000, true}, {19, 200, 2000, false}, {20, 200, 2000, true},
		{1 << 20, 1000, 0, false},
	} {
		if got := overBound(tc.items, tc.tags, tc.bound); got != tc.over {
			t.Errorf("overBound(%d items, %d tags, bound %d) = %v", tc.items, tc.tags, tc.bound, got)
		}
	}
}
