//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestPreviewIndexFollowsTargetChanges checks the informer index the RBAC preview
// finds stored policies through (webhook.PolicyIndexKeys), against a real API
// server: a policy for the same Dataplanes (by label) is found once it is created,
// and no longer once an update moves it to other Dataplanes, so the index drops the
// object's old keys when it re-files it. The other policy denies the client this
// one allows and sorts after it, so whether the preview merged it shows in the
// warnings of a server-side re-apply of this one.
func TestPreviewIndexFollowsTargetChanges(t *testing.T) {
	if err := ensureNS("kuma-system"); err != nil {
		t.Fatal(err)
	}
	const x = `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata:
  name: e2e-idx-x
  namespace: kuma-system
spec:
  targetRef:
    kind: Dataplane
    labels:
      app: idx-backend
  from:
    - targetRef:
        kind: MeshSubset
        tags:
          kuma.io/service: idx-web
      default:
        action: Allow
`
	other := func(app string) string {
		return strings.NewReplacer("e2e-idx-x", "e2e-idx-a", "idx-backend", app, "Allow", "Deny").Replace(x)
	}
	t.Cleanup(func() {
		kubectl(t, "", "delete", "--ignore-not-found", "-n", "kuma-system", "meshtrafficpermission", "e2e-idx-x", "e2e-idx-a")
	})
	apply := func(manifest string) string {
		t.Helper()
		_, stderr, err := kubectl(t, manifest, "apply", "--server-side", "--field-manager", "e2e-idx", "-f", "-")
		if err != nil {
			t.Fatal(err)
		}
		return stderr
	}
	const allowsWeb = "kuma-system/e2e-idx-x allows 1 more client: kuma.io/service=idx-web"
	// waitFor re-applies x until its warnings do (merged) or do not (alone) show
	// the other policy's deny.
	waitFor := func(merged bool, what string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			w := apply(x)
			if strings.Contains(w, allowsWeb) != merged {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("20 s after %s, re-applying x still previews it with merged=%v:\n%s", what, !merged, w)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	if w := apply(x); !strings.Contains(w, allowsWeb) {
		t.Fatalf("x alone: the warnings do not say it allows idx-web:\n%s", w)
	}
	apply(other("idx-backend"))
	waitFor(true, "e2e-idx-a was created for the same Dataplanes")
	apply(other("idx-elsewhere"))
	waitFor(false, "e2e-idx-a was moved to other Dataplanes")
	apply(other("idx-backend"))
	waitFor(true, "e2e-idx-a was moved back")
}
