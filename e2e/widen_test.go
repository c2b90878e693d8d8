//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestWideningWarning applies, through kubectl and the real API server, a
// mesh-wide policy that lets batch jobs in (in a mesh of its own), then a workload
// owner's policy. Once the webhook's informer cache holds the mesh-wide policy,
// the owner's allow of batch jobs widens nothing (no line), while an owner policy
// that also lets env=dev clients in prints exactly one "rbac-diff: widens
// access" line naming those clients and the proxies; an UPDATE that drops them
// again (narrowing) prints none.
func TestWideningWarning(t *testing.T) {
	local(t)
	for _, ns := range []string{"kuma-system", "e2e-widen"} {
		if err := ensureNS(ns); err != nil {
			t.Fatal(err)
		}
	}
	const meshAllow = `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata:
  name: e2e-widen-batch
  namespace: kuma-system
  labels: {kuma.io/mesh: e2e-widen}
spec:
  targetRef: {kind: Mesh}
  from:
    - targetRef:
        kind: MeshSubset
        tags: {kuma.io/service: batch}
      default: {action: Allow}
`
	const owner = `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata:
  name: e2e-widen-owner
  namespace: e2e-widen
  labels: {kuma.io/mesh: e2e-widen}
spec:
  targetRef:
    kind: Dataplane
    labels: {app: ledger}
  from:
    - targetRef:
        kind: MeshSubset
        tags: {kuma.io/service: batch}
      default: {action: Allow}
`
	const dev = `    - targetRef:
        kind: MeshSubset
        tags: {env: dev}
      default: {action: Allow}
`
	t.Cleanup(func() {
		kubectl(t, "", "delete", "--ignore-not-found", "-n", "e2e-widen", "meshtrafficpermission", "e2e-widen-owner")
		kubectl(t, "", "delete", "--ignore-not-found", "-n", "kuma-system", "meshtrafficpermission", "e2e-widen-batch")
	})
	if _, _, err := kubectl(t, meshAllow, "apply", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, stderr, err := kubectl(t, owner, "create", "--dry-run=server", "-f", "-")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stderr, "rbac-diff:") {
			break // the stored mesh-wide allow is merged: nothing widens
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s after the mesh-wide allow was stored, the owner's allow of the same client still warns:\n%s", stderr)
		}
		time.Sleep(300 * time.Millisecond)
	}
	const want = "rbac-diff: widens access to Dataplanes app=ledger in e2e-widen of mesh e2e-widen for env=dev, kuma.io/service!=batch"
	_, stderr, err := kubectl(t, owner+dev, "apply", "-f", "-")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(stderr, "rbac-diff:"); n != 1 || !strings.Contains(stderr, want) {
		t.Fatalf("CREATE: want exactly one line %q, got %d rbac-diff lines:\n%s", want, n, stderr)
	}
	_, stderr, err = kubectl(t, owner, "apply", "-f", "-")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stderr, "rbac-diff:") {
		t.Errorf("a narrowing UPDATE warns of a widening:\n%s", stderr)
	}
}

// TestLinkerdWideningReadsNamespaceDefault: whether a new Linkerd Server widens
// access depends on what its pods had before, the namespace's
// config.linkerd.io/default-inbound-policy (from the webhook's Namespace cache)
// or the cluster default. Under a namespace annotated deny, a Server with one
// authorization lets its clients in: one "authz-diff: widens access" line. Once
// the annotation says all-unauthenticated, the same Server shuts everyone else
// out and warns of nothing.
func TestLinkerdWideningReadsNamespaceDefault(t *testing.T) {
	local(t)
	const ns = "e2e-linkerd-widen"
	nsDeny := `apiVersion: v1
kind: Namespace
metadata:
  name: ` + ns + `
  annotations: {config.linkerd.io/default-inbound-policy: deny}
`
	const authz = `apiVersion: policy.linkerd.io/v1alpha1
kind: MeshTLSAuthentication
metadata: {name: frontends, namespace: ` + ns + `}
spec:
  identityRefs: [{kind: ServiceAccount, name: web}]
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: api-clients, namespace: ` + ns + `}
spec:
  targetRef: {group: policy.linkerd.io, kind: Server, name: api-http}
  requiredAuthenticationRefs: [{group: policy.linkerd.io, kind: MeshTLSAuthentication, name: frontends}]
`
	const server = `apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: api-http, namespace: ` + ns + `}
spec:
  podSelector: {matchLabels: {app: api}}
  port: 8080
`
	t.Cleanup(func() {
		kubectl(t, "", "delete", "--ignore-not-found", "-n", ns, "authorizationpolicies.policy.linkerd.io/api-clients", "meshtlsauthentications.policy.linkerd.io/frontends")
	})
	if _, _, err := kubectl(t, nsDeny, "apply", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := kubectl(t, authz, "apply", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	const want = "authz-diff: widens access to Server " + ns + "/api-http for service account " + ns + "/web"
	waitFor(t, "a Server in a namespace annotated deny to widen access", func() (bool, string) {
		_, stderr, err := kubectl(t, server, "create", "--dry-run=server", "-f", "-")
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(stderr, "authz-diff:") == 1 && strings.Contains(stderr, want), stderr
	})
	if _, _, err := kubectl(t, "", "annotate", "--overwrite", "namespace", ns, "config.linkerd.io/default-inbound-policy=all-unauthenticated"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the same Server to widen nothing once the namespace admits everyone", func() (bool, string) {
		_, stderr, err := kubectl(t, server, "create", "--dry-run=server", "-f", "-")
		if err != nil {
			t.Fatal(err)
		}
		return !strings.Contains(stderr, "authz-diff:"), stderr
	})
}

// waitFor polls cond for 30 s (the webhook's caches follow writes within a
// second or two) and fails with what cond last saw.
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok, seen := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s without %s; last seen:\n%s", what, seen)
		}
		time.Sleep(300 * time.Millisecond)
	}
}
