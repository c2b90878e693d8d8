//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestDanglingReferencesWarnAtAdmission applies, through the real API server and
// kubectl, objects whose references name nothing in the cluster: a MeshTimeout to a
// misspelt MeshService (Kuma generates MeshServices from Services, so the Service
// is what exists) and an AuthorizationPolicy requiring a misspelt ServiceAccount.
// Both are admitted with an MG4xx warning naming the nearest existing object, read
// from the webhook's informer caches; the same objects with the right names are
// admitted without one.
func TestDanglingReferencesWarnAtAdmission(t *testing.T) {
	const ns = "e2e-refs"
	if err := ensureNS(ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		kubectl(t, "", "delete", "--ignore-not-found", "-n", ns, "meshtimeout,authorizationpolicy,service,serviceaccount", "--all")
	})
	const existing = `apiVersion: v1
kind: Service
metadata: {name: backend, namespace: e2e-refs}
spec:
  ports: [{name: http, port: 8080}]
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: web, namespace: e2e-refs}
`
	if _, _, err := kubectl(t, existing, "apply", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	timeout := func(name string) string {
		return `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: to-` + name + `, namespace: e2e-refs}
spec:
  to:
    - targetRef: {kind: MeshService, name: ` + name + `, sectionName: http}
      default: {idleTimeout: 1h}
`
	}
	authz := func(sa string) string {
		return `apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: from-` + sa + `, namespace: e2e-refs}
spec:
  targetRef: {kind: Namespace, name: e2e-refs}
  requiredAuthenticationRefs: [{kind: ServiceAccount, name: ` + sa + `}]
`
	}
	// The caches see the Service and the ServiceAccount shortly after they are
	// stored; until then the namespace holds nothing they know and nothing warns.
	applyUntilWarning(t, timeout("backnd"), `Warning: MG401 spec.to[0].targetRef: MeshService e2e-refs/backnd: not found in the cluster (did you mean "backend"?)`)
	applyUntilWarning(t, authz("wbe"), `Warning: MG421 spec.requiredAuthenticationRefs[0]: ServiceAccount e2e-refs/wbe: not found in the cluster (did you mean "web"?)`)
	for _, doc := range []string{timeout("backend"), authz("web")} {
		_, stderr, err := kubectl(t, doc, "apply", "-f", "-")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(stderr, "MG4") {
			t.Errorf("a resolving reference warned:\n%s", stderr)
		}
	}
	// The dangling objects were stored: warnings never deny.
	if _, _, err := kubectl(t, "", "get", "-n", ns, "meshtimeout", "to-backnd"); err != nil {
		t.Errorf("the MeshTimeout with a dangling reference was not stored: %v", err)
	}
}

// applyUntilWarning applies doc with kubectl until its output holds the admission
// warning want, for at most 30 s: the webhook's informer caches see what was just
// stored shortly after, and until then nothing that rests on it warns. A warning
// never denies, so a refused apply fails the test.
func applyUntilWarning(t *testing.T, doc, want string) {
	t.Helper()
	// kubectl prints "Warning: " and the webhook's line, which is cut at 120
	// characters (117 and "...").
	want = want[:min(len(want), len("Warning: ")+117)]
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, stderr, err := kubectl(t, doc, "apply", "-f", "-")
		if err != nil {
			t.Fatalf("an object that draws a warning must not be denied: %v", err)
		}
		if strings.Contains(stderr, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no warning %q in:\n%s", want, stderr)
		}
		time.Sleep(time.Second)
	}
}
