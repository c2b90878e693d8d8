//go:build e2e

package e2e

import (
	"strings"
	"testing"
)

// TestCrossObjectChecksAtAdmission applies, through the real API server and
// kubectl, the Linkerd objects whose mistakes only show against other objects,
// once found by `meshguard lint` alone: a second HTTPLocalRateLimitPolicy on a
// Server (MG370: Linkerd applies only one) and an HTTPRoute parented to an
// EgressNetwork that does not exist (MG369: the route stays unattached). Both are
// admitted with a warning read from the webhook's informer caches (the chart's
// RBAC lets it watch both kinds); the same objects without the mistake are
// admitted without one.
func TestCrossObjectChecksAtAdmission(t *testing.T) {
	const ns = "e2e-cross"
	if err := ensureNS(ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		kubectl(t, "", "delete", "--ignore-not-found", "-n", ns, "httplocalratelimitpolicies.policy.linkerd.io,httproutes.policy.linkerd.io,egressnetworks.policy.linkerd.io", "--all")
	})
	limit := func(name, server string) string {
		return `apiVersion: policy.linkerd.io/v1alpha1
kind: HTTPLocalRateLimitPolicy
metadata: {name: ` + name + `, namespace: e2e-cross}
spec:
  targetRef: {group: policy.linkerd.io, kind: Server, name: ` + server + `}
  total: {requestsPerSecond: 100}
`
	}
	route := func(parent string) string {
		return `apiVersion: policy.linkerd.io/v1beta3
kind: HTTPRoute
metadata: {name: to-` + parent + `, namespace: e2e-cross}
spec:
  parentRefs: [{group: policy.linkerd.io, kind: EgressNetwork, name: ` + parent + `, port: 443}]
`
	}
	const network = `apiVersion: policy.linkerd.io/v1alpha1
kind: EgressNetwork
metadata: {name: internet, namespace: e2e-cross}
spec: {trafficPolicy: Allow}
`
	for _, doc := range []string{limit("first", "web"), network} {
		if _, stderr, err := kubectl(t, doc, "apply", "-f", "-"); err != nil || strings.Contains(stderr, "MG37") {
			t.Fatalf("setup: err %v, stderr:\n%s", err, stderr)
		}
	}
	applyUntilWarning(t, limit("second", "web"), "Warning: MG370 spec.targetRef: HTTPLocalRateLimitPolicies first, second all target Server web")
	applyUntilWarning(t, route("internt"), "Warning: MG369 spec.parentRefs[0]: the parent EgressNetwork internt (namespace e2e-cross) does not exist in the cluster")
	for _, doc := range []string{limit("other", "api"), route("internet")} {
		_, stderr, err := kubectl(t, doc, "apply", "-f", "-")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(stderr, "MG369") || strings.Contains(stderr, "MG370") {
			t.Errorf("an object without the mistake warned:\n%s", stderr)
		}
	}
}

// TestKumaEffectsAtAdmission applies a Dataplane (as Kuma writes one per pod)
// and then a MeshTimeout whose top-level targetRef selects no proxy of its
// namespace: admitted with MG452, read from the webhook's caches of Dataplanes and
// Kuma policies; the same policy selecting the proxy is admitted without it.
func TestKumaEffectsAtAdmission(t *testing.T) {
	const ns = "e2e-effects"
	if err := ensureNS(ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		kubectl(t, "", "delete", "--ignore-not-found", "-n", ns, "meshtimeouts.kuma.io,dataplanes.kuma.io", "--all")
	})
	const dataplane = `apiVersion: kuma.io/v1alpha1
kind: Dataplane
mesh: default
metadata: {name: backend-1, namespace: e2e-effects, labels: {app: backend}}
spec:
  networking:
    address: 10.0.0.2
    inbound: [{port: 8080, name: http, tags: {kuma.io/service: backend_e2e-effects_svc_8080, kuma.io/protocol: http}}]
`
	timeout := func(name, app string) string {
		return `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: ` + name + `, namespace: e2e-effects}
spec:
  targetRef: {kind: Dataplane, labels: {app: ` + app + `}}
  rules: [{default: {http: {requestTimeout: 10s}}}]
`
	}
	if _, stderr, err := kubectl(t, dataplane, "apply", "-f", "-"); err != nil {
		t.Fatalf("setup: err %v, stderr:\n%s", err, stderr)
	}
	applyUntilWarning(t, timeout("miss", "backend-v2"), "Warning: MG452 spec.targetRef: the top-level targetRef selects none of the proxies of mesh default in namespace e2e-effects (1 proxy)")
	_, stderr, err := kubectl(t, timeout("hit", "backend"), "apply", "-f", "-")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stderr, "MG452") {
		t.Errorf("a policy that selects the proxy warned:\n%s", stderr)
	}
}
