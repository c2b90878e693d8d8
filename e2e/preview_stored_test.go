//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestPreviewFollowsStoredWrites creates a MeshTrafficPermission after two server
// dry runs of the same manifest (each patched with the mesh label), then re-applies
// it unchanged with server-side apply: an UPDATE that changes nothing, which the
// API server still sends to the webhook. The RBAC preview in that answer merges the
// stored policies from the informer cache, so when another policy for the same
// proxies is created, the next re-apply must show its effect. (The other policy is
// named to sort after this one in Kuma's order, so its deny of the client this
// one allows wins, and this one's preview no longer says it allows that client.)
func TestPreviewFollowsStoredWrites(t *testing.T) {
	local(t)
	if err := ensureNS("kuma-system"); err != nil {
		t.Fatal(err)
	}
	const x = `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata:
  name: e2e-cache-x
  namespace: kuma-system
spec:
  targetRef:
    kind: Mesh
  from:
    - targetRef:
        kind: MeshSubset
        tags:
          kuma.io/service: cache-web
      default:
        action: Allow
`
	const y = `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata:
  name: e2e-cache-a
  namespace: kuma-system
spec:
  targetRef:
    kind: Mesh
  from:
    - targetRef:
        kind: MeshSubset
        tags:
          kuma.io/service: cache-web
      default:
        action: Deny
`
	t.Cleanup(func() {
		kubectl(t, "", "delete", "--ignore-not-found", "-n", "kuma-system", "meshtrafficpermission", "e2e-cache-x", "e2e-cache-a")
	})
	apply := func() string {
		t.Helper()
		_, stderr, err := kubectl(t, x, "apply", "--server-side", "--field-manager", "e2e-cache", "-f", "-")
		if err != nil {
			t.Fatal(err)
		}
		return stderr
	}
	// Two dry runs and the create: each is answered afresh and patched alike.
	for range 2 {
		if _, _, err := kubectl(t, x, "create", "--dry-run=server", "-f", "-"); err != nil {
			t.Fatal(err)
		}
	}
	apply() // creates it
	var mesh string
	if out, _, err := kubectl(t, "", "get", "-n", "kuma-system", "meshtrafficpermission", "e2e-cache-x", "-o", "jsonpath={.metadata.labels.kuma\\.io/mesh}"); err != nil {
		t.Fatal(err)
	} else if mesh = strings.TrimSpace(out); mesh != "default" {
		t.Fatalf("the created policy's kuma.io/mesh label is %q, want the patch's \"default\"", mesh)
	}
	const allowsWeb = "kuma-system/e2e-cache-x allows 1 more client: kuma.io/service=cache-web"
	var before string
	for range 3 {
		if before = apply(); !strings.Contains(before, allowsWeb) || strings.Contains(before, "e2e-cache-a") {
			t.Fatalf("re-apply before e2e-cache-a exists: warnings do not preview x alone:\n%s", before)
		}
	}
	if _, _, err := kubectl(t, y, "apply", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		w := apply()
		if w != before && !strings.Contains(w, allowsWeb) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("20 s after e2e-cache-a was created, re-applying x still previews without it:\n%s", w)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
