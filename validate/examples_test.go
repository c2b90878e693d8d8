package validate

import (
	"fmt"

	"github.com/meshguard/meshguard/api"
)

// Objects the tests of this package build on. They were the catalogue's
// examples while it was Go code; the catalogue's own examples are now files in
// rules/examples/, and these stay for the tests that vary them.
const (
	mtHead          = "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: timeouts\n  namespace: kuma-system\n"
	mtGood          = mtHead + "spec:\n  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        idleTimeout: 1h\n"
	mtpHead         = "apiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata:\n  name: permissions\n  namespace: kuma-system\n"
	mtpGood         = mtpHead + "spec:\n  targetRef:\n    kind: Mesh\n  from:\n    - targetRef:\n        kind: MeshSubset\n        tags:\n          kuma.io/service: web\n      default:\n        action: Allow\n"
	consumerTimeout = "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: to-backend\n  namespace: frontend-ns\nspec:\n  to:\n    - targetRef:\n        kind: MeshService\n        name: backend\n        namespace: backend-ns\n      default:\n        idleTimeout: 1h\n"
	gatewayConsumer = "apiVersion: kuma.io/v1alpha1\nkind: MeshCircuitBreaker\nmetadata:\n  name: gw\n  namespace: finance-ns\nspec:\n  targetRef:\n    kind: MeshGateway\n    name: edge-gateway\n  to:\n    - targetRef:\n        kind: MeshService\n        name: backend\n        namespace: backend-ns\n      default:\n        outlierDetection:\n          detectors:\n            totalFailures:\n              consecutive: 10\n"
	gatewayProducer = "apiVersion: kuma.io/v1alpha1\nkind: MeshCircuitBreaker\nmetadata:\n  name: gw\n  namespace: frontend-ns\nspec:\n  targetRef:\n    kind: MeshGateway\n    name: edge-gateway\n  to:\n    - targetRef:\n        kind: MeshService\n        name: frontend\n      default:\n        outlierDetection:\n          detectors:\n            totalFailures:\n              consecutive: 10\n"
	msGood          = "  selector:\n    dataplaneTags:\n      app: redis\n  ports:\n    - name: tcp\n      port: 6379\n      targetPort: 6379\n      appProtocol: tcp\n"
	mesGood         = "  match:\n    type: HostnameGenerator\n    port: 443\n    protocol: http\n  endpoints:\n    - address: httpbin.org\n      port: 443\n  tls:\n    enabled: true\n"
	mzmsGood        = "  selector:\n    meshService:\n      matchLabels:\n        kuma.io/display-name: backend\n  ports:\n    - port: 80\n      appProtocol: http\n"
	otelGood        = "  endpoint:\n    address: otel-collector.observability\n    port: 4317\n  protocol: grpc\n"
	routeHead       = "metadata:\n  name: route\n  namespace: kuma-system\nspec:\n  to:\n    - targetRef:\n        kind: MeshService\n        name: backend\n      rules:\n"
	httpRoute       = "apiVersion: kuma.io/v1alpha1\nkind: MeshHTTPRoute\n" + routeHead +
		"        - matches:\n            - path:\n                type: PathPrefix\n                value: %s\n          default:\n            backendRefs:\n              - kind: MeshService\n                name: backend-v2\n"
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

// resource returns a manifest of a Kuma resource kind in the system namespace
// (cluster-scoped kinds get none).
func resource[K ~string](kind K, name, spec string) string {
	ns := "\n  namespace: kuma-system"
	if string(kind) == string(api.RefMesh) {
		ns = ""
	}
	return "apiVersion: kuma.io/v1alpha1\nkind: " + string(kind) + "\nmetadata:\n  name: " + name + ns + "\nspec:\n" + spec
}
