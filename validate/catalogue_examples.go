package validate

import "fmt"

// Example objects for the rule catalogue; each is linted by TestCatalogueExamples.
const (
	mtHead = "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: timeouts\n  namespace: kuma-system\n"
	mtGood = mtHead + "spec:\n  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        idleTimeout: 1h\n"

	mtpHead = "apiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata:\n  name: permissions\n  namespace: kuma-system\n"
	mtpGood = mtpHead + "spec:\n  targetRef:\n    kind: Mesh\n  from:\n    - targetRef:\n        kind: MeshSubset\n        tags:\n          kuma.io/service: web\n      default:\n        action: Allow\n"

	spiffeGood = mtpHead + "spec:\n  rules:\n    - default:\n        deny:\n          - spiffeID:\n              type: Exact\n              value: spiffe://td.mesh/ns/default/sa/frontend\n"

	consumerTimeout = "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: to-backend\n  namespace: frontend-ns\nspec:\n  to:\n    - targetRef:\n        kind: MeshService\n        name: backend\n        namespace: backend-ns\n      default:\n        idleTimeout: 1h\n"

	mixedRoles = "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: mixed\n  namespace: finance-ns\nspec:\n  to:\n    - targetRef:\n        kind: MeshService\n        name: backend\n        namespace: finance-ns\n      default:\n        idleTimeout: 1h\n    - targetRef:\n        kind: MeshService\n        name: redis\n        namespace: redis-ns\n      default:\n        idleTimeout: 1h\n"

	fromAndTo = "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: both\n  namespace: frontend-ns\nspec:\n  to:\n    - targetRef:\n        kind: MeshService\n        name: backend\n        namespace: backend-ns\n      default:\n        idleTimeout: 1h\n  from:\n    - targetRef:\n        kind: Mesh\n      default:\n        idleTimeout: 1h\n"

	gatewayConsumer = "apiVersion: kuma.io/v1alpha1\nkind: MeshCircuitBreaker\nmetadata:\n  name: gw\n  namespace: finance-ns\nspec:\n  targetRef:\n    kind: MeshGateway\n    name: edge-gateway\n  to:\n    - targetRef:\n        kind: MeshService\n        name: backend\n        namespace: backend-ns\n      default:\n        outlierDetection:\n          detectors:\n            totalFailures:\n              consecutive: 10\n"

	gatewayProducer = "apiVersion: kuma.io/v1alpha1\nkind: MeshCircuitBreaker\nmetadata:\n  name: gw\n  namespace: frontend-ns\nspec:\n  targetRef:\n    kind: MeshGateway\n    name: edge-gateway\n  to:\n    - targetRef:\n        kind: MeshService\n        name: frontend\n      default:\n        outlierDetection:\n          detectors:\n            totalFailures:\n              consecutive: 10\n"
)

// labelled is the good MeshTimeout with one extra label line.
func labelled(label string) string {
	return "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: timeouts\n  namespace: kuma-system\n  labels:\n    " + label +
		"\nspec:\n  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        idleTimeout: 1h\n"
}

// gatewayRoute is the policy-on-namespace MADR's MeshHTTPRoute on a MeshGateway, in ns, to a backend in backendNS.
func gatewayRoute(ns, backendNS string) string {
	return fmt.Sprintf(`apiVersion: kuma.io/v1alpha1
kind: MeshHTTPRoute
metadata:
  name: http-route-1
  namespace: %s
spec:
  targetRef:
    kind: MeshGateway
    name: edge-gateway
  to:
    - targetRef:
        kind: Mesh
      rules:
        - matches:
            - path:
                type: PathPrefix
                value: /internal
          default:
            backendRefs:
              - kind: MeshService
                name: internal
                namespace: %s
`, ns, backendNS)
}

// routeBackend is a system-namespace MeshHTTPRoute with one backendRef.
func routeBackend(kind, name string) string {
	n := ""
	if name != "" {
		n = "\n                name: " + name
	}
	return fmt.Sprintf(`apiVersion: kuma.io/v1alpha1
kind: MeshHTTPRoute
metadata:
  name: route
  namespace: kuma-system
spec:
  targetRef:
    kind: Dataplane
    labels:
      app: frontend
  to:
    - targetRef:
        kind: MeshService
        name: backend
      rules:
        - matches:
            - path:
                type: PathPrefix
                value: /
          default:
            backendRefs:
              - kind: %s%s
`, kind, n)
}
