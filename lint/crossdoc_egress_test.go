package lint

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/validate"
)

// TestMissingEgressNetwork: a route parented to an EgressNetwork draws MG369 when the
// EgressNetwork (same namespace, or the one parentRef names) is not linted with it,
// only where the set can see: a namespace it holds EgressNetworks of (a lint of one
// route file stays quiet), or everywhere, as an error, with --strict-references.
func TestMissingEgressNetwork(t *testing.T) {
	const route = "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: r\n  namespace: app\nspec:\n" +
		"  parentRefs:\n    - {group: policy.linkerd.io, kind: EgressNetwork, name: internet, port: 443}\n"
	egress := func(name, ns string) string {
		return "apiVersion: policy.linkerd.io/v1alpha1\nkind: EgressNetwork\nmetadata:\n  name: " + name + "\n  namespace: " + ns + "\nspec:\n  trafficPolicy: Allow\n"
	}
	s := api.DefaultSettings()
	loose := Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry(), Stages: CrossDocument(s, "default")}
	strict := loose
	strict.Stages = CrossDocumentInventory(s, "default", &Inventory{Complete: true})
	// The EgressNetwork exists in the cluster: --inventory holds it.
	inv := InventoryOf([]*unstructured.Unstructured{LoadBytes("inv.yaml", []byte(egress("internet", "app")))[0].Object}, "default")
	inv.Complete = true
	inCluster := loose
	inCluster.Stages = CrossDocumentInventory(s, "default", inv)
	// The documents are a cluster's (meshguard audit): absence is known, a warning.
	audit := loose
	audit.Stages = CrossDocumentInventory(s, "default", &Inventory{Cluster: true})
	for _, tc := range []struct {
		name     string
		doc      string
		o        Options
		severity string // of the one MG369 finding; "" for none
	}{
		{"alone", route, loose, ""},
		{"with its EgressNetwork", route + "---\n" + egress("internet", "app"), loose, ""},
		{"EgressNetwork of another namespace", route + "---\n" + egress("internet", "other"), loose, ""},
		{"another EgressNetwork of its namespace", route + "---\n" + egress("intranet", "app"), loose, validate.SeverityWarning},
		{"alone, strict", route, strict, validate.SeverityError},
		{"with its EgressNetwork, strict", route + "---\n" + egress("internet", "app"), strict, ""},
		{"its EgressNetwork in --inventory, strict", route, inCluster, ""},
		{"alone, a cluster's objects", route, audit, validate.SeverityWarning},
		{"with its EgressNetwork, a cluster's objects", route + "---\n" + egress("internet", "app"), audit, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, _ := Lint(LoadBytes("x.yaml", []byte(tc.doc)), tc.o)
			var got []string
			for _, f := range fs {
				if f.Code == validate.CodeLinkerdMissingEgressNet {
					got = append(got, f.Severity)
					if strings.Contains(tc.name, "cluster's objects") && !strings.Contains(f.Message, "does not exist in the cluster") {
						t.Errorf("an audit finding must say the cluster: %q", f.Message)
					}
					if f.Field != "spec.parentRefs[0]" {
						t.Errorf("finding %+v", f)
					}
				}
			}
			var want []string
			if tc.severity != "" {
				want = []string{tc.severity}
			}
			if !slices.Equal(got, want) {
				t.Errorf("MG369 findings %v, want %v: %+v", got, want, fs)
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
