package validate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
)

// kuma30Case is an object whose verdict Kuma 3.0 (--kuma-version 3.0-preview)
// changes: what 2.14 and 3.0-preview say (codes, fields, severities, through the
// webhook's pipeline, where an unknown field is a warning), and words the 3.0
// finding must carry (what to write instead, from Kuma's UPGRADE.md).
type kuma30Case struct {
	name, doc string
	v214, v30 []got
	say       string
}

// kuma30Cases are the rule deltas of the pinned commit, each with an object 2.14
// accepts and 3.0-preview refuses or prunes, and the reverse where it exists.
func kuma30Cases() []kuma30Case {
	return []kuma30Case{
		{"MeshTimeout with from only (#17552)", `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: mt, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from: [{targetRef: {kind: Mesh}, default: {idleTimeout: 1h}}]
`, []got{{CodeFromDeprecated, "spec.from", SeverityWarning}},
			[]got{{api.CodeUnknownField, "spec.from", SeverityWarning}, {CodeSpecShape, "spec", SeverityError}}, "write 'rules'"},
		{"MeshTimeout with from and rules: refused by 2.14, from pruned by 3.0", `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: mt, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from: [{targetRef: {kind: Mesh}, default: {idleTimeout: 1h}}]
  rules: [{default: {idleTimeout: 1h}}]
`, []got{{CodeSections, "spec.from", SeverityError}},
			[]got{{api.CodeUnknownField, "spec.from", SeverityWarning}}, "Kuma 3.0 removed 'from'"},
		{"MeshCircuitBreaker with from only (#17570)", `apiVersion: kuma.io/v1alpha1
kind: MeshCircuitBreaker
metadata: {name: cb, namespace: kuma-system}
spec:
  from: [{targetRef: {kind: Mesh}, default: {connectionLimits: {maxConnections: 1024}}}]
`, []got{{CodeFromDeprecated, "spec.from", SeverityWarning}},
			[]got{{api.CodeUnknownField, "spec.from", SeverityWarning}, {CodeSpecShape, "spec", SeverityError}}, "write 'rules'"},
		{"MeshAccessLog with from only (#17586)", `apiVersion: kuma.io/v1alpha1
kind: MeshAccessLog
metadata: {name: al, namespace: kuma-system}
spec:
  from: [{targetRef: {kind: Mesh}, default: {backends: [{type: File, file: {path: /tmp/access.log}}]}}]
`, []got{{CodeFromDeprecated, "spec.from", SeverityWarning}},
			[]got{{api.CodeUnknownField, "spec.from", SeverityWarning}, {CodeSpecShape, "spec", SeverityError}}, "write 'rules'"},
		{"MeshRateLimit with from only (#17628)", `apiVersion: kuma.io/v1alpha1
kind: MeshRateLimit
metadata: {name: rl, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh, proxyTypes: [Sidecar]}
  from: [{targetRef: {kind: Mesh}, default: {local: {tcp: {connectionRate: {num: 5, interval: 10s}}}}}]
`, []got{{CodeFromDeprecated, "spec.from", SeverityWarning}},
			[]got{{api.CodeUnknownField, "spec.from", SeverityWarning}, {api.CodeUnknownField, "spec.targetRef.proxyTypes", SeverityWarning}, {CodeSpecShape, "spec", SeverityError}},
			"write 'rules'"},
		{"MeshTLS with from only (#17598)", `apiVersion: kuma.io/v1alpha1
kind: MeshTLS
metadata: {name: tls, namespace: kuma-system}
spec:
  from: [{targetRef: {kind: Mesh}, default: {mode: Strict}}]
`, []got{{CodeFromDeprecated, "spec.from", SeverityWarning}},
			[]got{{api.CodeUnknownField, "spec.from", SeverityWarning}, {CodeNoEffect, "spec", SeverityWarning}}, "write 'rules'"},
		{"MeshFaultInjection with from only (#17507)", `apiVersion: kuma.io/v1alpha1
kind: MeshFaultInjection
metadata: {name: fi, namespace: kuma-system}
spec:
  targetRef: {kind: Dataplane, labels: {app: web}}
  from: [{targetRef: {kind: Mesh}, default: {http: [{abort: {httpStatus: 500, percentage: 50}}]}}]
`, []got{{CodeFromDeprecated, "spec.from", SeverityWarning}},
			[]got{{api.CodeUnknownField, "spec.from", SeverityWarning}, {CodeNoEffect, "spec", SeverityWarning}}, "write 'rules'"},
		{"MeshTrafficPermission with from only", `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: mtp, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from: [{targetRef: {kind: Mesh}, default: {action: Allow}}]
`, []got{{CodeMTPFromDeprecated, "spec.from", SeverityWarning}},
			[]got{{api.CodeUnknownField, "spec.from", SeverityWarning}, {CodeSpecShape, "spec", SeverityError}}, "spiffeID"},
		{"top-level targetRef MeshService (#17422)", `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: mt, namespace: kuma-system}
spec:
  targetRef: {kind: MeshSubset, tags: {app: web}}
  to: [{targetRef: {kind: Mesh}, default: {idleTimeout: 1h}}]
`, []got{{CodeDeprecated, "spec.targetRef.kind", SeverityWarning}},
			[]got{{api.CodeUnknownField, "spec.targetRef.tags", SeverityWarning}, {api.CodeWrongType, "spec.targetRef.kind", SeverityError}},
			"Dataplane with labels"},
		{"to a MeshService by name (#17756, #17761)", `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: mt, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  to: [{targetRef: {kind: MeshService, name: backend, namespace: shop}, default: {idleTimeout: 1h}}]
`, nil, []got{{api.CodeUnknownField, "spec.to[0].targetRef.name", SeverityWarning},
			{api.CodeUnknownField, "spec.to[0].targetRef.namespace", SeverityWarning},
			{CodeRefField, "spec.to[0].targetRef.labels", SeverityError}}, "labels only"},
		{"MeshCircuitBreaker with rules and to: refused by 2.14, accepted by 3.0", `apiVersion: kuma.io/v1alpha1
kind: MeshCircuitBreaker
metadata: {name: cb, namespace: kuma-system}
spec:
  rules: [{default: {connectionLimits: {maxConnections: 2}}}]
  to: [{targetRef: {kind: Mesh}, default: {connectionLimits: {maxConnections: 2}}}]
`, []got{{CodeSections, "spec.to", SeverityError}}, nil, ""},
		{"MeshLoadBalancingStrategy to a MeshExternalService under a Dataplane: refused by 2.14, accepted by 3.0", `apiVersion: kuma.io/v1alpha1
kind: MeshLoadBalancingStrategy
metadata: {name: lb, namespace: kuma-system}
spec:
  targetRef: {kind: Dataplane, labels: {kuma.io/listener-zoneegress: enabled}}
  to: [{targetRef: {kind: MeshExternalService, labels: {kuma.io/display-name: httpbin}}, default: {loadBalancer: {type: RoundRobin}}}]
`, []got{{CodeToKind, "spec.to[0].targetRef.kind", SeverityError}}, nil, ""},
		{"a route to a MeshServiceSubset", `apiVersion: kuma.io/v1alpha1
kind: MeshHTTPRoute
metadata: {name: r, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  to:
  - targetRef: {kind: MeshService, labels: {kuma.io/display-name: backend}}
    rules:
    - matches: [{path: {type: PathPrefix, value: /}}]
      default:
        backendRefs: [{kind: MeshServiceSubset, name: backend, tags: {version: v1}, port: 80}]
`, nil, []got{{api.CodeUnknownField, "spec.to[0].rules[0].default.backendRefs[0].name", SeverityWarning},
			{api.CodeUnknownField, "spec.to[0].rules[0].default.backendRefs[0].tags", SeverityWarning},
			{api.CodeWrongType, "spec.to[0].rules[0].default.backendRefs[0].kind", SeverityError}}, "real resource"},
		{"MeshService named with an underscore (#18026)", `apiVersion: kuma.io/v1alpha1
kind: MeshService
metadata: {name: backend_1, namespace: kuma-system, labels: {kuma.io/mesh: default}}
spec:
  selector: {dataplaneLabels: {matchLabels: {app: backend}}}
  ports: [{port: 80, targetPort: 8080, appProtocol: http}]
`, []got{{CodeMeshService, "metadata.name", SeverityWarning}, {CodeMeshService, "spec.ports[0]", SeverityWarning}},
			[]got{{CodeMeshService, "metadata.name", SeverityError}}, `"backend-1"`},
		{"MeshGateway (the built-in gateway's CRDs removed)", `apiVersion: kuma.io/v1alpha1
kind: MeshGateway
mesh: default
metadata: {name: gw}
spec:
  selectors: [{match: {kuma.io/service: gw}}]
  conf: {listeners: [{port: 80, protocol: HTTP}]}
`, nil, []got{{CodeUnservedKind, "kind", SeverityError}}, "delegated gateway"},
		{"a Mesh ownerReference naming another mesh", `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: mt
  namespace: kuma-system
  labels: {kuma.io/mesh: default}
  ownerReferences: [{apiVersion: kuma.io/v1alpha1, kind: Mesh, name: other, uid: 8a2c3d1e-0000-4000-8000-000000000002}]
spec:
  to: [{targetRef: {kind: Mesh}, default: {idleTimeout: 1h}}]
`, nil, []got{{CodeMeshChanged, "metadata.ownerReferences[0].name", SeverityError}}, "delete it and apply it again"},
		{"MeshHealthCheck healthyPanicThreshold", `apiVersion: kuma.io/v1alpha1
kind: MeshHealthCheck
metadata: {name: hc, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  to:
  - targetRef: {kind: Mesh}
    default: {interval: 10s, timeout: 2s, unhealthyThreshold: 3, healthyThreshold: 1, healthyPanicThreshold: "50", tcp: {}}
`, []got{{CodeResilienceDeprecated, "spec.to[0].default.healthyPanicThreshold", SeverityWarning}},
			[]got{{api.CodeUnknownField, "spec.to[0].default.healthyPanicThreshold", SeverityWarning}}, "MeshCircuitBreaker"},
	}
}

// TestKuma30Deltas: each rule delta of the pinned commit gives 2.14's verdict under
// --kuma-version 2.14 and 3.0's under 3.0-preview, with what to write instead.
func TestKuma30Deltas(t *testing.T) {
	s214, s30 := releaseSettings(t, "2.14"), releaseSettings(t, "3.0-preview")
	for _, tc := range kuma30Cases() {
		if d := cmp.Diff(tc.v214, kuma30Noise(reduce(lintOne(t, tc.doc, s214, api.Request{})))); d != "" {
			t.Errorf("%s, Kuma 2.14 (-want +got):\n%s", tc.name, d)
		}
		res := lintOne(t, tc.doc, s30, api.Request{})
		if d := cmp.Diff(tc.v30, kuma30Noise(reduce(res))); d != "" {
			t.Errorf("%s, Kuma 3.0-preview (-want +got):\n%s\n%v %v", tc.name, d, res.Errors, res.Warnings)
		}
		var words []string
		for _, e := range append(res.Errors, res.Warnings...) {
			words = append(words, e.Error())
		}
		if !strings.Contains(strings.Join(words, "\n"), tc.say) {
			t.Errorf("%s, Kuma 3.0-preview: no finding says %q:\n%s", tc.name, tc.say, strings.Join(words, "\n"))
		}
	}
}

// kuma30Noise drops what every policy of the cases gets whatever the release: the
// origin notices.
func kuma30Noise(in []got) []got {
	var out []got
	for _, g := range in {
		if g.Code == CodeOrigin {
			continue
		}
		out = append(out, g)
	}
	return out
}
