package validate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
)

// kumaPolicy builds a system-namespace policy of kind with the given spec (YAML
// indented by two spaces).
func kumaPolicy(kind, spec string) string {
	return "apiVersion: kuma.io/v1alpha1\nkind: " + kind + "\nmetadata: {name: p, namespace: kuma-system}\nspec:\n" + spec
}

type sharedCase struct {
	name, kind, spec string
	want             []got
}

func runShared(t *testing.T, cases []sharedCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := strings.TrimPrefix(tc.spec, "\n")
			got := reduce(lintOne(t, kumaPolicy(tc.kind, spec), api.DefaultSettings(), api.Request{}))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestSharedSections covers which sections Kuma's validators accept together and
// with which top-level targets.
func TestSharedSections(t *testing.T) {
	runShared(t, []sharedCase{
		{"rules with to", "MeshTimeout", `
  targetRef: {kind: Mesh}
  to: [{targetRef: {kind: Mesh}, default: {idleTimeout: 1s}}]
  rules: [{default: {idleTimeout: 1s}}]`, []got{e(CodeSections, "spec.to")}},
		{"rules alone", "MeshTimeout", `
  targetRef: {kind: Mesh}
  rules: [{default: {idleTimeout: 1s}}]`, nil},
		{"rules with from", "MeshTLS", `
  targetRef: {kind: Mesh}
  from: [{targetRef: {kind: Mesh}, default: {mode: Strict}}]
  rules: [{default: {mode: Strict}}]`, []got{e(CodeSections, "spec.from")}},
		{"fault injection: rules with to on gateways is fine", "MeshFaultInjection", `
  targetRef: {kind: Mesh, proxyTypes: [Gateway]}
  to: [{targetRef: {kind: Mesh}, default: {http: []}}]
  rules: [{default: {http: []}}]`, nil},
		{"empty lists count as none", "MeshTimeout", `
  targetRef: {kind: Mesh}
  to: []
  from: []`, []got{e(CodeSpecShape, "spec")}},
		{"retry without to: Kuma accepts, no effect", "MeshRetry", `
  targetRef: {kind: Mesh}
  to: []`, []got{w(CodeNoEffect, "spec")}},
		{"item without default", "MeshTimeout", `
  to: [{targetRef: {kind: Mesh}}]`, []got{e(CodeSpecShape, "spec.to[0].default")}},
		{"fault injection item without default is fine", "MeshFaultInjection", `
  targetRef: {kind: Mesh, proxyTypes: [Gateway]}
  to: [{targetRef: {kind: Mesh}}]`, nil},
		{"trace without default", "MeshTrace", `
  targetRef: {kind: Mesh}`, []got{e(CodeSpecShape, "spec.default"), e(CodeTraceConf, "spec.default.backends")}},
		{"metric without default: Kuma accepts", "MeshMetric", `
  targetRef: {kind: Mesh}`, []got{w(CodeNoEffect, "spec.default")}},
		{"fault injection from with gateways in scope", "MeshFaultInjection", `
  targetRef: {kind: Mesh}
  from: [{targetRef: {kind: Mesh}, default: {http: []}}]`, []got{e(CodeSections, "spec.from")}},
		{"fault injection from on sidecars", "MeshFaultInjection", `
  targetRef: {kind: Mesh, proxyTypes: [Sidecar]}
  from: [{targetRef: {kind: Mesh}, default: {http: []}}]`, []got{w(CodeFromDeprecated, "spec.from")}},
		{"fault injection to on sidecars only", "MeshFaultInjection", `
  targetRef: {kind: Dataplane, labels: {app: web}}
  to: [{targetRef: {kind: Mesh}, default: {http: []}}]`, []got{e(CodeSections, "spec.to")}},
		{"rate limit rules on a MeshHTTPRoute", "MeshRateLimit", `
  targetRef: {kind: MeshHTTPRoute, name: r}
  rules: [{default: {local: {http: {requestRate: {num: 1, interval: 1s}}}}}]`,
			[]got{w(CodeDeprecated, "spec.targetRef.kind"), e(CodeSections, "spec.rules")}},
		{"timeout from on a MeshGateway", "MeshTimeout", `
  targetRef: {kind: MeshGateway, name: edge}
  from: [{targetRef: {kind: Mesh}, default: {idleTimeout: 1s}}]`, []got{e(CodeSections, "spec.from")}},
	})
}

// TestSharedKindTables covers the per-kind targetRef tables and the field rules
// that depend on the kind or on the policy's direction.
func TestSharedKindTables(t *testing.T) {
	runShared(t, []sharedCase{
		{"health check to MeshExternalService", "MeshHealthCheck", `
  to: [{targetRef: {kind: MeshExternalService, name: ext}, default: {tcp: {}}}]`, nil},
		{"access log to MeshHTTPRoute", "MeshAccessLog", `
  to: [{targetRef: {kind: MeshHTTPRoute, name: r}, default: {backends: []}}]`, nil},
		{"access log on a gateway to a service", "MeshAccessLog", `
  targetRef: {kind: MeshGateway, name: edge}
  to: [{targetRef: {kind: MeshService, name: web}, default: {backends: []}}]`, []got{e(CodeToKind, "spec.to[0].targetRef.kind")}},
		{"sectionName on a Dataplane of an inbound policy", "MeshTimeout", `
  targetRef: {kind: Dataplane, labels: {app: web}, sectionName: http}
  rules: [{default: {idleTimeout: 1s}}]`, nil},
		{"sectionName on a Dataplane of an outbound policy", "MeshTimeout", `
  targetRef: {kind: Dataplane, labels: {app: web}, sectionName: http}
  to: [{targetRef: {kind: Mesh}, default: {idleTimeout: 1s}}]`, []got{e(CodeRefField, "spec.targetRef.sectionName")}},
		{"sectionName on a MeshHTTPRoute", "MeshTimeout", `
  to: [{targetRef: {kind: MeshHTTPRoute, name: r, sectionName: x}, default: {idleTimeout: 1s}}]`, []got{e(CodeRefField, "spec.to[0].targetRef.sectionName")}},
		{"sectionName with labels on a MeshService", "MeshTimeout", `
  to: [{targetRef: {kind: MeshService, labels: {app: web}, sectionName: http}, default: {idleTimeout: 1s}}]`, nil},
		{"listener tags on a MeshGateway where allowed", "MeshTimeout", `
  targetRef: {kind: MeshGateway, name: edge, tags: {port: "80"}}
  to: [{targetRef: {kind: Mesh}, default: {idleTimeout: 1s}}]`, nil},
		{"listener tags on a MeshGateway of MeshTrace", "MeshTrace", `
  targetRef: {kind: MeshGateway, name: edge, tags: {port: "80"}}
  default: {backends: []}`, []got{e(CodeRefField, "spec.targetRef.tags")}},
		{"proxyTypes in to", "MeshTimeout", `
  to: [{targetRef: {kind: Mesh, proxyTypes: [Sidecar]}, default: {idleTimeout: 1s}}]`, nil},
		{"empty proxyTypes", "MeshTimeout", `
  targetRef: {kind: Mesh, proxyTypes: []}
  to: [{targetRef: {kind: Mesh}, default: {idleTimeout: 1s}}]`, []got{e(CodeRefField, "spec.targetRef.proxyTypes")}},
		{"proxyTypes on a MeshService", "MeshTimeout", `
  to: [{targetRef: {kind: MeshService, name: web, proxyTypes: [Sidecar]}, default: {idleTimeout: 1s}}]`, []got{e(CodeRefField, "spec.to[0].targetRef.proxyTypes")}},
		{"MeshMultiZoneService fields are not checked", "MeshTimeout", `
  to: [{targetRef: {kind: MeshMultiZoneService, labels: {app: web}, name: web}, default: {idleTimeout: 1s}}]`, nil},
		{"MeshTrafficPermission on a MeshHTTPRoute", "MeshTrafficPermission", `
  targetRef: {kind: MeshHTTPRoute, name: r}
  from: [{targetRef: {kind: Mesh}, default: {action: Allow}}]`, []got{e(CodeTopKind, "spec.targetRef.kind"), w(CodeMTPFromDeprecated, "spec.from")}},
	})
}

// TestSharedMatches covers rules[].matches (spiffeID and sni).
func TestSharedMatches(t *testing.T) {
	mt := func(match string) string {
		return "  rules:\n    - matches: [" + match + "]\n      default: {http: {requestTimeout: 1s}}"
	}
	runShared(t, []sharedCase{
		{"spiffeID", "MeshTimeout", mt("{spiffeID: {type: Prefix, value: 'spiffe://td/ns/default'}}"), []got{w(CodeSpiffePrefix, "spec.rules[0].matches[0].spiffeID.value")}},
		{"sni", "MeshTimeout", mt("{sni: {type: Exact, value: backend.default.svc}}"), nil},
		{"empty match", "MeshTimeout", mt("{}"), []got{e(CodeMatch, "spec.rules[0].matches[0]")}},
		{"spiffeID without scheme", "MeshTimeout", mt("{spiffeID: {type: Exact, value: 'td/ns/default'}}"),
			[]got{e(CodeMatch, "spec.rules[0].matches[0].spiffeID.value")}},
		{"spiffeID trailing slash", "MeshTimeout", mt("{spiffeID: {type: Prefix, value: 'spiffe://td/ns/'}}"),
			[]got{e(CodeMatch, "spec.rules[0].matches[0].spiffeID.value")}},
		{"spiffeID type", "MeshTimeout", mt("{spiffeID: {type: Regex, value: 'spiffe://td/x'}}"),
			[]got{e(CodeMatch, "spec.rules[0].matches[0].spiffeID.type")}},
		{"sni type", "MeshTimeout", mt("{sni: {type: Prefix, value: backend}}"),
			[]got{e(CodeMatch, "spec.rules[0].matches[0].sni.type")}},
		{"sni value", "MeshTimeout", mt("{sni: {type: Exact, value: Backend_1}}"),
			[]got{e(CodeMatch, "spec.rules[0].matches[0].sni.value")}},
		{"empty match where Kuma is lenient", "MeshAccessLog", "  rules:\n    - matches: [{}]\n      default: {backends: []}", nil},
	})
}
