package lint

import (
	"testing"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/validate"
)

// TestMissingEgressNetwork: a route parented to an EgressNetwork draws MG369 unless
// the EgressNetwork (same namespace, or the one parentRef names) is linted with it.
func TestMissingEgressNetwork(t *testing.T) {
	const route = "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: r\n  namespace: app\nspec:\n" +
		"  parentRefs:\n    - {group: policy.linkerd.io, kind: EgressNetwork, name: internet, port: 443}\n"
	egress := func(ns string) string {
		return "apiVersion: policy.linkerd.io/v1alpha1\nkind: EgressNetwork\nmetadata:\n  name: internet\n  namespace: " + ns + "\nspec:\n  trafficPolicy: Allow\n"
	}
	s := api.DefaultSettings()
	o := Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry(), Stages: CrossDocument(s, "default")}
	for _, tc := range []struct {
		name string
		doc  string
		want int
	}{
		{"alone", route, 1},
		{"with its EgressNetwork", route + "---\n" + egress("app"), 0},
		{"EgressNetwork of another namespace", route + "---\n" + egress("other"), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, _ := Lint(LoadBytes("x.yaml", []byte(tc.doc)), o)
			n := 0
			for _, f := range fs {
				if f.Code == validate.CodeLinkerdMissingEgressNet {
					n++
					if f.Field != "spec.parentRefs[0]" || f.Severity != validate.SeverityWarning {
						t.Errorf("finding %+v", f)
					}
				}
			}
			if n != tc.want {
				t.Errorf("%d MG369 findings, want %d: %+v", n, tc.want, fs)
			}
		})
	}
}

// TestRateLimitConflicts: two HTTPLocalRateLimitPolicies on one Server draw MG370 on
// both; on different Servers (or namespaces) none.
func TestRateLimitConflicts(t *testing.T) {
	rl := func(name, ns, server string) string {
		return "apiVersion: policy.linkerd.io/v1alpha1\nkind: HTTPLocalRateLimitPolicy\nmetadata:\n  name: " + name + "\n  namespace: " + ns +
			"\nspec:\n  targetRef: {group: policy.linkerd.io, kind: Server, name: " + server + "}\n  total: {requestsPerSecond: 10}\n---\n"
	}
	s := api.DefaultSettings()
	o := Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry(), Stages: CrossDocument(s, "default")}
	for _, tc := range []struct {
		name string
		doc  string
		want int
	}{
		{"one per Server", rl("a", "web", "http") + rl("b", "web", "admin") + rl("c", "other", "http"), 0},
		{"two on one Server", rl("a", "web", "http") + rl("b", "web", "http"), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, _ := Lint(LoadBytes("x.yaml", []byte(tc.doc)), o)
			n := 0
			for _, f := range fs {
				if f.Code == validate.CodeLinkerdRateLimitConflict {
					n++
				}
			}
			if n != tc.want {
				t.Errorf("%d MG370 findings, want %d: %+v", n, tc.want, fs)
			}
		})
	}
}
