//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestVerdictCacheFollowsStoredWrites creates a MeshTrafficPermission after two
// server dry runs of the same manifest (the second and the create are cache hits:
// they differ only in what the API server sets), then re-applies it unchanged
// with server-side apply: an UPDATE that changes nothing, which the API server
// still sends to the webhook, byte for byte the same, so meshguard's verdict cache
// answers it. The RBAC preview in that answer merges the stored policies, so when
// another policy for the same proxies is created, the next re-apply must show its
// effect: the informer's event count versions the cache. (The other policy is
// named to sort after this one in Kuma's order, so its deny of the client this
// one allows wins, and this one's preview no longer says it allows that client.)
func TestVerdictCacheFollowsStoredWrites(t *testing.T) {
	st := local(t)
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
	// A dry run, another and the create: the API server gives each its own uid,
	// creation time and managedFields, which the verdict key leaves out, so the
	// second dry run and the create are answered from the cache.
	hits := cacheLookups(t, st.Meshguard.MetricsPort, "hit")
	mutationHits := mutationLookups(t, st.Meshguard.MetricsPort, "hit")
	for range 2 {
		if _, _, err := kubectl(t, x, "create", "--dry-run=server", "-f", "-"); err != nil {
			t.Fatal(err)
		}
	}
	apply() // creates it
	if got := cacheLookups(t, st.Meshguard.MetricsPort, "hit") - hits; got < 2 {
		t.Fatalf("two dry-run creates and the create got %d verdict cache hits, want 2", got)
	} else {
		t.Logf("a dry-run create, another and the create: %d verdict cache hits", got)
	}
	// The mutating webhook sees the same three objects first; the second dry run
	// and the create get the first one's patch.
	if got := mutationLookups(t, st.Meshguard.MetricsPort, "hit") - mutationHits; got < 2 {
		t.Fatalf("two dry-run creates and the create got %d mutation cache hits, want 2", got)
	} else {
		t.Logf("a dry-run create, another and the create: %d mutation cache hits", got)
	}
	var mesh string
	if out, _, err := kubectl(t, "", "get", "-n", "kuma-system", "meshtrafficpermission", "e2e-cache-x", "-o", "jsonpath={.metadata.labels.kuma\\.io/mesh}"); err != nil {
		t.Fatal(err)
	} else if mesh = strings.TrimSpace(out); mesh != "default" {
		t.Fatalf("the created policy's kuma.io/mesh label is %q, want the patch's \"default\"", mesh)
	}
	hits = cacheLookups(t, st.Meshguard.MetricsPort, "hit")
	const allowsWeb = "kuma-system/e2e-cache-x allows 1 more client: kuma.io/service=cache-web"
	var before string
	for range 3 {
		if before = apply(); !strings.Contains(before, allowsWeb) || strings.Contains(before, "e2e-cache-a") {
			t.Fatalf("re-apply before e2e-cache-a exists: warnings do not preview x alone:\n%s", before)
		}
	}
	if got := cacheLookups(t, st.Meshguard.MetricsPort, "hit") - hits; got < 1 {
		t.Fatalf("unchanged re-applies got %d verdict cache hits; the test would not show the cache following writes", got)
	} else {
		t.Logf("unchanged re-applies answered from the verdict cache: %d hits", got)
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

// mutationLookups reads meshguard_mutation_cache_lookups_total{result} from
// meshguard's metrics endpoint.
func mutationLookups(t *testing.T, port int, result string) int {
	t.Helper()
	return metricValue(t, port, fmt.Sprintf(`meshguard_mutation_cache_lookups_total{result=%q} `, result))
}

// cacheLookups reads meshguard_verdict_cache_lookups_total{result} from meshguard's
// metrics endpoint.
func cacheLookups(t *testing.T, port int, result string) int {
	t.Helper()
	return metricValue(t, port, fmt.Sprintf(`meshguard_verdict_cache_lookups_total{result=%q} `, result))
}
