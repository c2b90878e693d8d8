package validate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

// schemaSettings are the defaults with the CRDs loaded, as every door runs.
func schemaSettings(t testing.TB) api.Settings {
	t.Helper()
	s := api.DefaultSettings()
	if err := schema.LoadInto(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// finding is one finding as a test compares its words.
type finding struct {
	Code, Field, Severity, Detail string
}

func findings(r Result) []finding {
	var out []finding
	for _, e := range r.Errors {
		out = append(out, finding{e.Origin, e.Field, SeverityError, e.Detail})
	}
	for _, e := range r.Warnings {
		out = append(out, finding{e.Origin, e.Field, SeverityWarning, e.Detail})
	}
	return out
}

// TestSchemaErrorsWithoutAPath checks that the errors kube-openapi makes without a
// field path (a oneOf on an object, a type check inside an anyOf) point at the
// field their text names, never at "<nil>", and show no empty value.
func TestSchemaErrorsWithoutAPath(t *testing.T) {
	s := schemaSettings(t)
	cases := []struct {
		name, doc string
		want      finding
	}{
		{"oneOf on spec", `apiVersion: policy.linkerd.io/v1alpha1
kind: MeshTLSAuthentication
metadata: {name: test, namespace: web}
spec:
  identities: ["a.b"]
  identityRefs: [{kind: ServiceAccount, name: web}]
`, finding{api.CodeWrongType, "spec", SeverityError, "must validate one and only one schema (oneOf). Found 2 valid alternatives"}},
		{"anyOf inside a Kuma conf", `apiVersion: kuma.io/v1alpha1
kind: MeshCircuitBreaker
metadata: {name: cb, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  rules:
    - default:
        outlierDetection:
          detectors:
            successRate: {standardDeviationFactor: 1.9}
`, finding{api.CodeWrongType, "spec.rules[0].default.outlierDetection.detectors.successRate.standardDeviationFactor", SeverityError, "must validate at least one schema (anyOf)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := findings(lintOne(t, tc.doc, s, api.Request{}))
			found := false
			for _, f := range got {
				if f.Field == "<nil>" || f.Field == "" || strings.Contains(f.Detail, `Invalid value: ""`) {
					t.Errorf("unplaced finding %+v", f)
				}
				found = found || cmp.Equal(f, tc.want)
			}
			if !found {
				t.Errorf("no %+v in\n%+v", tc.want, got)
			}
		})
	}
}

// TestNumberAsDuration checks that a duration written as a bare number gets the
// kind's duration finding, saying how to write it, in place of the CRD's bare
// "must be of type string" (one finding, not two).
func TestNumberAsDuration(t *testing.T) {
	s := schemaSettings(t)
	timeout := `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: t, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  to:
    - targetRef: {kind: Mesh}
      default: {idleTimeout: 30, connectionTimeout: 5s}
`
	retry := `apiVersion: kuma.io/v1alpha1
kind: MeshRetry
metadata: {name: r, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  to:
    - targetRef: {kind: Mesh}
      default:
        http: {numRetries: 3, perTryTimeout: 1.5}
`
	cases := []struct {
		name, doc string
		want      []finding
	}{
		{"MeshTimeout", timeout, []finding{{CodeMeshTimeoutConf, "spec.to[0].default.idleTimeout", SeverityError,
			`MeshTimeout reads a duration as a string with a unit, not a bare number; write "30s" (seconds), or e.g. 500ms, 1m30s`}}},
		{"MeshRetry", retry, []finding{{CodeRetryConf, "spec.to[0].default.http.perTryTimeout", SeverityError,
			`MeshRetry reads a duration as a string with a unit, not a bare number; write "1.5s" (seconds), or e.g. 500ms, 1m30s`}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []finding
			for _, f := range findings(lintOne(t, tc.doc, s, api.Request{})) {
				if f.Code != CodeMTPFromDeprecated && f.Severity == SeverityError {
					got = append(got, f)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPolicyWithoutSpec checks that a Kuma policy without spec is judged as Kuma
// judges it: as one with an empty spec (Kuma stores an empty spec for nil), so a
// route without spec is accepted with the no-effect warning (it was the error
// MG020), while a kind whose validator wants a section still refuses it.
func TestPolicyWithoutSpec(t *testing.T) {
	s := schemaSettings(t)
	head := func(kind string) string {
		return "apiVersion: kuma.io/v1alpha1\nkind: " + kind + "\nmetadata: {name: r, namespace: kuma-system}\n"
	}
	cases := []struct {
		kind string
		want []got
	}{
		{"MeshHTTPRoute", []got{{CodeNoEffect, "spec.to", SeverityWarning}}},
		{"MeshTCPRoute", []got{{CodeNoEffect, "spec.to", SeverityWarning}}},
		{"MeshTimeout", []got{{CodeSpecShape, "spec", SeverityError}}},
	}
	for _, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			bare := reduce(lintOne(t, head(tc.kind), s, api.Request{}))
			if diff := cmp.Diff(tc.want, bare); diff != "" {
				t.Errorf("no spec (-want +got):\n%s", diff)
			}
			empty := reduce(lintOne(t, head(tc.kind)+"spec: {}\n", s, api.Request{}))
			if diff := cmp.Diff(empty, bare); diff != "" {
				t.Errorf("no spec and an empty spec differ (-empty +none):\n%s", diff)
			}
		})
	}
}

// TestFromDeprecatedAsKuma checks Kuma 2.14.3's deprecation warning for `from` on
// every kind whose Deprecations() gives it, in Kuma's words, and none on a kind
// that does not (MeshTrafficPermission has its own, MG190).
func TestFromDeprecatedAsKuma(t *testing.T) {
	s := schemaSettings(t)
	doc := func(kind, conf string) string {
		return "apiVersion: kuma.io/v1alpha1\nkind: " + kind + "\nmetadata: {name: p, namespace: kuma-system}\nspec:\n" +
			"  targetRef: {kind: Mesh, proxyTypes: [Sidecar]}\n  from:\n    - targetRef: {kind: Mesh}\n      default: " + conf + "\n"
	}
	const rules = "'from' field is deprecated, use 'rules' instead (Kuma 2.14; 'from' is removed in Kuma 3.0)"
	cases := []struct {
		kind, conf, want string
	}{
		{"MeshTimeout", "{idleTimeout: 1h}", rules},
		{"MeshRateLimit", "{local: {tcp: {connectionRate: {num: 5, interval: 10s}}}}", rules},
		{"MeshFaultInjection", "{http: [{abort: {httpStatus: 500, percentage: 10}}]}",
			"'from' field is deprecated, use 'rules' with SPIFFE-based 'matches' instead (Kuma 2.14; 'from' is removed in Kuma 3.0)"},
		{"MeshCircuitBreaker", "{connectionLimits: {maxConnections: 2}}", rules},
		{"MeshAccessLog", "{backends: [{type: File, file: {path: /tmp/log}}]}", rules},
		{"MeshTLS", "{tlsVersion: {min: TLS12}}", rules},
		{"MeshTrafficPermission", "{action: Allow}", ""},
		{"MeshHealthCheck", "{interval: 10s}", ""},
	}
	for _, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			var got []finding
			for _, f := range findings(lintOne(t, doc(tc.kind, tc.conf), s, api.Request{})) {
				if f.Code == CodeFromDeprecated {
					got = append(got, f)
				}
			}
			var want []finding
			if tc.want != "" {
				want = []finding{{CodeFromDeprecated, "spec.from", SeverityWarning, tc.want}}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("MG192 (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSpiffePrefixReach checks the MG193 warning: a Prefix matcher, matched by
// Kuma as a string prefix, admits identities that continue its last segment.
func TestSpiffePrefixReach(t *testing.T) {
	s := schemaSettings(t)
	mtp := func(typ, value string) string {
		return "apiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata: {name: p, namespace: kuma-system}\nspec:\n  rules:\n    - default:\n        allow:\n          - spiffeID: {type: " + typ + ", value: \"" + value + "\"}\n"
	}
	rl := "apiVersion: kuma.io/v1alpha1\nkind: MeshRateLimit\nmetadata: {name: p, namespace: kuma-system}\nspec:\n  targetRef: {kind: Mesh, proxyTypes: [Sidecar]}\n  rules:\n    - matches:\n        - spiffeID: {type: Prefix, value: \"spiffe://td.mesh/ns/web\"}\n      default: {local: {http: {requestRate: {num: 5, interval: 10s}}}}\n"
	const mtpAt = "spec.rules[0].default.allow[0].spiffeID.value"
	cases := []struct {
		name, doc string
		want      []got
	}{
		{"namespace prefix", mtp("Prefix", "spiffe://td.mesh/ns/web"), []got{{CodeSpiffePrefix, mtpAt, SeverityWarning}}},
		{"trust domain prefix", mtp("Prefix", "spiffe://td.mesh"), []got{{CodeSpiffePrefix, mtpAt, SeverityWarning}}},
		{"exact", mtp("Exact", "spiffe://td.mesh/ns/web/sa/frontend"), nil},
		{"trailing slash is Kuma's error, not this warning", mtp("Prefix", "spiffe://td.mesh/ns/web/"), nil},
		{"rules matches of another kind", rl, []got{{CodeSpiffePrefix, "spec.rules[0].matches[0].spiffeID.value", SeverityWarning}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out []got
			for _, g := range reduce(lintOne(t, tc.doc, s, api.Request{})) {
				if g.Code == CodeSpiffePrefix {
					out = append(out, g)
				}
			}
			if diff := cmp.Diff(tc.want, out); diff != "" {
				t.Errorf("MG193 (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDataplaneKeepsItsNamespaceLabel checks that a Dataplane whose
// k8s.kuma.io/namespace differs from its namespace is admitted with the label kept,
// as Kuma 2.14's defaulter (setIfNotExist) keeps it, while a policy's label stays
// meshguard's to own (MG012 without mutation).
func TestDataplaneKeepsItsNamespaceLabel(t *testing.T) {
	s := schemaSettings(t)
	reg := api.DefaultRegistry()
	dp := mustObj(t, topMesh(res("Dataplane", "dp-1", "kuma-demo", "  networking:\n"+dpIn, "k8s.kuma.io/namespace: other-ns")))
	kind := reg.Lookup(dp.GroupVersionKind())
	req := api.Request{Operation: api.OpCreate}
	if r := pipeline(dp, kind, s, req); len(r.Errors) > 0 {
		t.Errorf("Dataplane refused: %v", r.Errors)
	}
	if got := dp.GetLabels()[api.LabelNamespace]; got != "other-ns" {
		t.Errorf("k8s.kuma.io/namespace after defaulting = %q, want the user's other-ns", got)
	}
	pol := mustObj(t, `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: t, namespace: kuma-demo, labels: {k8s.kuma.io/namespace: other-ns}}
spec:
  to: [{targetRef: {kind: Mesh}, default: {idleTimeout: 1h}}]
`)
	want := []got{{CodeOwnedLabel, "metadata.labels[k8s.kuma.io/namespace]", SeverityError}}
	if diff := cmp.Diff(want, errorsOnly(Validate(pol, reg.Lookup(pol.GroupVersionKind()), s, req))); diff != "" {
		t.Errorf("policy without mutation (-want +got):\n%s", diff)
	}
}
