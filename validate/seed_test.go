package validate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
)

// TestSeedStatements turns every validation statement of seeds 000-003 into a case.
func TestSeedStatements(t *testing.T) {
	standalone := settings(api.ModeStandalone, "")
	zone := settings(api.ModeZone, "zone-1")
	global := settings(api.ModeGlobal, "")
	cases := []struct {
		name string
		s    api.Settings
		doc  string
		want []got // errors only
	}{
		{
			name: "003 mixed producer and consumer items are rejected, consumer item named",
			s:    zone,
			doc: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: mixed, namespace: finance-ns, labels: {kuma.io/zone: zone-1}}
spec:
  to:
    - targetRef: {kind: MeshService, name: backend, namespace: finance-ns}
      default: {idleTimeout: 1h}
    - targetRef: {kind: MeshService, name: redis, namespace: redis-ns}
      default: {idleTimeout: 1h}`,
			want: []got{{CodeMixedRoles, "spec.to[1].targetRef.namespace", SeverityError}},
		},
		{
			name: "003 namespace-scoped policy with from and to is rejected",
			s:    standalone,
			doc: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: both, namespace: frontend-ns}
spec:
  to:
    - targetRef: {kind: MeshService, name: backend, namespace: backend-ns}
      default: {idleTimeout: 1h}
  from:
    - targetRef: {kind: Mesh}
      default: {idleTimeout: 1h}`,
			want: []got{{CodeFromAndTo, "spec.from", SeverityError}},
		},
		{
			name: "003 from and to together are fine in the system namespace",
			s:    standalone,
			doc: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: both, namespace: kuma-system}
spec:
  to:
    - targetRef: {kind: Mesh}
      default: {idleTimeout: 1h}
  from:
    - targetRef: {kind: Mesh}
      default: {idleTimeout: 1h}`,
		},
		{
			name: "003 producer policy (backend owner)",
			s:    zone,
			doc: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: producer, namespace: backend-ns}
spec:
  targetRef: {kind: Mesh}
  to:
    - targetRef: {kind: MeshService, name: backend, namespace: backend-ns}
      default: {idleTimeout: 1h}`,
		},
		{
			name: "003 consumer policy (frontend owner)",
			s:    zone,
			doc: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: consumer, namespace: frontend-ns, labels: {kuma.io/zone: zone-1}}
spec:
  targetRef: {kind: Mesh}
  to:
    - targetRef: {kind: MeshService, name: backend, namespace: backend-ns}
      default: {idleTimeout: 1h}`,
		},
		{
			name: "003 workload-owner policy with from",
			s:    zone,
			doc: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: wo, namespace: frontend-ns}
spec:
  from:
    - default: {idleTimeout: 1h}`,
		},
		{
			name: "003 producer MeshCircuitBreaker may target a MeshGateway",
			s:    zone,
			doc:  gatewayProducer,
		},
		{
			name: "003 consumer policy may not target a MeshGateway",
			s:    zone,
			doc:  gatewayConsumer,
			want: []got{{CodeGatewayConsumer, "spec.targetRef.kind", SeverityError}},
		},
		{
			name: "003 cross-namespace backendRef on a MeshGateway route (and the route is outside the system namespace)",
			s:    zone,
			doc:  gatewayRoute("payments-ns", "internal-ns"),
			want: []got{
				{CodeCrossNamespace, "spec.to[0].rules[0].default.backendRefs[0].namespace", SeverityError},
				{CodeGatewayRoute, "spec.targetRef.kind", SeverityError},
			},
		},
		{
			name: "003 the mesh operator may route anywhere from the system namespace",
			s:    zone,
			doc:  gatewayRoute("kuma-system", "internal-ns"),
		},
		{
			name: "003 requestMirror backendRef is checked too",
			s:    standalone,
			doc: `apiVersion: kuma.io/v1alpha1
kind: MeshHTTPRoute
metadata: {name: mirror, namespace: payments-ns}
spec:
  targetRef: {kind: MeshGateway, name: edge-gateway}
  to:
    - targetRef: {kind: Mesh}
      rules:
        - default:
            filters:
              - type: RequestMirror
                requestMirror:
                  backendRef: {kind: MeshService, name: spy, namespace: internal-ns}
            backendRefs:
              - {kind: MeshService, name: payments}`,
			want: []got{
				{CodeCrossNamespace, "spec.to[0].rules[0].default.filters[0].requestMirror.backendRef.namespace", SeverityError},
				{CodeGatewayRoute, "spec.targetRef.kind", SeverityError},
			},
		},
		{
			name: "003 namespace-scoped policies only in the system namespace on global",
			s:    global,
			doc:  consumerTimeout,
			want: []got{{CodeGlobalNamespace, "metadata.namespace", SeverityError}},
		},
		{
			name: "000 worked example policies are valid (Kuma's spelling of actions)",
			s:    standalone,
			doc: `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: backend, namespace: kuma-system}
spec:
  targetRef: {kind: MeshService, name: backend}
  from:
    - targetRef: {kind: MeshSubset, tags: {env: dev}}
      default: {action: Allow}
    - targetRef: {kind: MeshService, name: web}
      default: {action: AllowWithShadowDeny}
    - targetRef: {kind: Mesh}
      default: {action: Deny}`,
		},
		{
			name: "000 the MADR's upper-case actions are outside Kuma's enum",
			s:    standalone,
			doc: `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: backend, namespace: kuma-system}
spec:
  from:
    - targetRef: {kind: MeshSubset, tags: {env: dev}}
      default: {action: ALLOW}
    - targetRef: {kind: Mesh}
      default: {action: DENY_WITH_SHADOW_ALLOW}`,
			want: []got{
				{CodeMTPAction, "spec.from[0].default.action", SeverityError},
				{CodeMTPAction, "spec.from[1].default.action", SeverityError},
			},
		},
		{
			name: "000 cross-mesh from with a MeshGatewayRoute target",
			s:    standalone,
			doc: `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: cross-mesh-permission, namespace: kuma-system, labels: {kuma.io/mesh: expose}}
spec:
  targetRef: {kind: MeshGatewayRoute, name: cross-mesh-route}
  from:
    - targetRef: {kind: MeshService, name: backend, mesh: consume}
      default: {action: Allow}
    - targetRef: {kind: MeshServiceSubset, name: backend, mesh: consume, tags: {version: v1}}
      default: {action: Deny}`,
		},
		{
			name: "000 cross-mesh from without a MeshGatewayRoute target",
			s:    standalone,
			doc: `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: cm, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from:
    - targetRef: {kind: MeshService, name: backend, mesh: consume}
      default: {action: Allow}`,
			want: []got{{CodeCrossMesh, "spec.from[0].targetRef.mesh", SeverityError}},
		},
		{
			name: "000 unknown action",
			s:    standalone,
			doc: `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: a, namespace: kuma-system}
spec:
  from:
    - targetRef: {kind: Mesh}
      default: {action: REJECT}
    - targetRef: {kind: Mesh}
      default: {}`,
			want: []got{
				{CodeMTPAction, "spec.from[0].default.action", SeverityError},
				{CodeMTPAction, "spec.from[1].default.action", SeverityError},
			},
		},
		{
			name: "001 all three lists, written as Kuma's rules",
			s:    standalone,
			doc: `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: by-service-owner, namespace: kuma-system}
spec:
  targetRef: {}
  rules:
    - default:
        deny:
          - spiffeID: {type: Exact, value: "spiffe://trust-domain.mesh/ns/default/sa/api-gateway"}
        allowWithShadowDeny:
          - spiffeID: {type: Prefix, value: "spiffe://trust-domain.mesh/ns/legacy"}
        allow:
          - spiffeID: {type: Prefix, value: "spiffe://trust-domain.mesh"}`,
		},
		{
			name: "001 seed form spec.default is not a section of Kuma's CRD",
			s:    standalone,
			doc: `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: by-service-owner, namespace: kuma-system}
spec:
  targetRef: {}
  default:
    allow:
      - spiffeID: {type: Prefix, value: "spiffe://trust-domain.mesh"}`,
			want: []got{{CodeSpecShape, "spec", SeverityError}},
		},
		{
			name: "001 user story SO-4: method and path conditions, Kuma's rules spelling",
			s:    standalone,
			doc: `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: by-backend-owner, namespace: backend-ns}
spec:
  targetRef: {kind: Dataplane, labels: {app: backend}}
  rules:
    - default:
        allow:
          - method: GET
          - method: POST
            spiffeID: {type: Exact, value: "spiffe://trust-domain.mesh/ns/default/sa/writer-1"}
          - method: GET
            path: {type: Prefix, value: /metrics}
            spiffeID: {type: Prefix, value: "spiffe://trust-domain.mesh/ns/observability"}`,
			// Kuma's CRD has no method/path: they are dropped (MG001 warnings), and the
			// first matcher, left empty, matches no client (MG191).
		},
		{
			name: "001 malformed SPIFFE matchers",
			s:    standalone,
			doc: `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: bad, namespace: kuma-system}
spec:
  rules:
    - default:
        deny:
          - spiffeID: {type: Exact, value: "http://trust-domain.mesh/ns/default"}
          - spiffeID: {type: Regex, value: "spiffe://td/x"}
          - spiffeID: {type: Exact, value: "spiffe://TD.mesh/ns"}
          - spiffeID: {type: Exact, value: "spiffe://td.mesh/ns//sa"}
          - spiffeID: {type: Prefix, value: "spiffe://td.mesh/ns/"}
          - {}
          - spiffeId: {type: Exact, value: "not even a SPIFFE ID: dropped, not checked"}`,
			want: []got{
				{CodeSpiffe, "spec.rules[0].default.deny[0].spiffeID", SeverityError},
				{CodeSpiffe, "spec.rules[0].default.deny[1].spiffeID.type", SeverityError},
				{CodeSpiffe, "spec.rules[0].default.deny[2].spiffeID", SeverityError},
				{CodeSpiffe, "spec.rules[0].default.deny[3].spiffeID", SeverityError},
				{CodeSpiffe, "spec.rules[0].default.deny[4].spiffeID", SeverityError},
			},
		},
		{
			name: "from and SPIFFE matchers together",
			s:    standalone,
			doc: `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: both, namespace: kuma-system}
spec:
  from:
    - targetRef: {kind: Mesh}
      default: {action: Allow}
  rules:
    - default:
        allow:
          - spiffeID: {type: Prefix, value: "spiffe://td"}`,
			want: []got{{CodeMTPForm, "spec.rules", SeverityError}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := lintOne(t, tc.doc, tc.s, api.Request{})
			if diff := cmp.Diff(tc.want, errorsOnly(res)); diff != "" {
				t.Errorf("errors (-want +got):\n%s\nall: %v", diff, res.Errors)
			}
		})
	}
}
