package refs

import "github.com/meshguard/meshguard/validate"

// Codes of references that resolve to nothing (MG401-MG449). All are warnings:
// the meshes accept such objects, and the order of applies varies, so the
// referenced object may simply come later.
const (
	// CodeKumaRef: a targetRef or backendRef names a MeshService,
	// MeshExternalService, MeshMultiZoneService, MeshGateway or MeshHTTPRoute
	// that does not exist.
	CodeKumaRef = "MG401"
	// CodeKumaSection: a sectionName or port is not a port of the MeshService
	// (or MeshMultiZoneService) it names.
	CodeKumaSection = "MG402"
	// CodeSelector: a Kuma label selection (Dataplane, MeshService or
	// MeshMultiZoneService labels) selects nothing.
	CodeSelector = "MG403"
	// CodeOTelBackend: a MeshMetric, MeshTrace or MeshAccessLog backendRef
	// names a MeshOpenTelemetryBackend that does not exist.
	CodeOTelBackend = "MG404"
	// CodeMesh: a Kuma object belongs to a mesh that does not exist.
	CodeMesh = "MG405"
	// CodeLinkerdTarget: an AuthorizationPolicy targets a Server, route or
	// Namespace that does not exist, or a ServerAuthorization names a missing
	// Server.
	CodeLinkerdTarget = "MG420"
	// CodeLinkerdAuthn: an AuthorizationPolicy requires a MeshTLSAuthentication,
	// NetworkAuthentication or ServiceAccount that does not exist, or a
	// MeshTLSAuthentication or ServerAuthorization names a missing ServiceAccount
	// (or Namespace).
	CodeLinkerdAuthn = "MG421"
	// CodeLinkerdParent: a route's Server or Service parent does not exist, or
	// the Service has no such port.
	CodeLinkerdParent = "MG422"
	// CodeLinkerdBackend: a route's Service backend does not exist, or has no
	// such port.
	CodeLinkerdBackend = "MG423"
	// CodeLinkerdPods: a Server's podSelector selects no pod of the workloads.
	CodeLinkerdPods = "MG424"
)

// Example objects of the catalogue; TestCatalogueExamples lints each, so every
// bad example must produce its code and every good one must be clean.
const (
	exService = "apiVersion: v1\nkind: Service\nmetadata:\n  name: backend\n  namespace: shop\nspec:\n  selector:\n    app: backend\n  ports:\n    - name: http\n      port: 8080\n"
	exDeploy  = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: web-ns\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n        - name: web\n          image: web:1\n          ports:\n            - name: http\n              containerPort: 8080\n"
	exSvcWeb  = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: web-ns\nspec:\n  selector:\n    app: web\n  ports:\n    - name: http\n      port: 8080\n"
	exOTel    = "apiVersion: kuma.io/v1alpha1\nkind: MeshOpenTelemetryBackend\nmetadata:\n  name: otel-collector\n  namespace: kuma-system\n  labels:\n    app: otel-collector\nspec:\n  endpoint:\n    address: otel-collector.observability\n    port: 4317\n"
	exMesh    = "apiVersion: kuma.io/v1alpha1\nkind: Mesh\nmetadata:\n  name: payments\nspec:\n  meshServices:\n    mode: Exclusive\n"
)

// exTimeout is a MeshTimeout in shop whose to[] targets the MeshService name,
// with extra targetRef lines.
func exTimeout(name, extra string) string {
	return "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: backend-timeout\n  namespace: shop\nspec:\n  to:\n    - targetRef:\n        kind: MeshService\n        name: " + name + "\n" + extra + "      default:\n        idleTimeout: 1h\n"
}

// exSelector is a MeshTimeout in web-ns whose Dataplane selector picks app.
func exSelector(app string) string {
	return "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: web-timeout\n  namespace: web-ns\nspec:\n  targetRef:\n    kind: Dataplane\n    labels:\n      app: " + app + "\n  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        idleTimeout: 1h\n"
}

func exMetric(backend string) string {
	return "apiVersion: kuma.io/v1alpha1\nkind: MeshMetric\nmetadata:\n  name: metrics\n  namespace: kuma-system\nspec:\n  targetRef:\n    kind: Mesh\n  default:\n    backends:\n      - type: OpenTelemetry\n        openTelemetry:\n          backendRef:\n            kind: MeshOpenTelemetryBackend\n            labels:\n              app: " + backend + "\n"
}

func exMeshTimeout(mesh string) string {
	return "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: timeouts\n  namespace: kuma-system\n  labels:\n    kuma.io/mesh: " + mesh + "\nspec:\n  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        idleTimeout: 1h\n"
}

func exServer(name, app string) string {
	return "apiVersion: policy.linkerd.io/v1beta3\nkind: Server\nmetadata:\n  name: " + name + "\n  namespace: web-ns\nspec:\n  podSelector:\n    matchLabels:\n      app: " + app + "\n  port: http\n  proxyProtocol: HTTP/1\n"
}

func exAuthn(name string) string {
	return "apiVersion: policy.linkerd.io/v1alpha1\nkind: MeshTLSAuthentication\nmetadata:\n  name: " + name + "\n  namespace: web-ns\nspec:\n  identities:\n    - frontend.frontend-ns.serviceaccount.identity.linkerd.cluster.local\n"
}

func exAP(server, authn string) string {
	return "apiVersion: policy.linkerd.io/v1alpha1\nkind: AuthorizationPolicy\nmetadata:\n  name: web-authz\n  namespace: web-ns\nspec:\n  targetRef:\n    group: policy.linkerd.io\n    kind: Server\n    name: " + server + "\n  requiredAuthenticationRefs:\n    - group: policy.linkerd.io\n      kind: MeshTLSAuthentication\n      name: " + authn + "\n"
}

func exRoute(parent, backend, port string) string {
	return "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: web-route\n  namespace: web-ns\nspec:\n  parentRefs:\n    - group: core\n      kind: Service\n      name: " + parent + "\n      port: 8080\n  rules:\n    - backendRefs:\n        - name: " + backend + "\n          port: " + port + "\n"
}

// Catalogue documents MG401-MG449.
func Catalogue() []validate.RuleDoc {
	const w = validate.SeverityWarning
	const lint = " (linter across files and --inventory; admission warning from the cluster's objects)"
	return []validate.RuleDoc{
		{Code: CodeKumaRef, Severity: w, Summary: "a targetRef or backendRef names a MeshService, MeshExternalService, MeshMultiZoneService, MeshGateway or MeshHTTPRoute that does not exist (a MeshService may be the one Kuma generates from a Service)" + lint,
			Bad: exService + "---\n" + exTimeout("backnd", ""), Good: exService + "---\n" + exTimeout("backend", "")},
		{Code: CodeKumaSection, Severity: w, Summary: "a sectionName or port is not a port of the MeshService or MeshMultiZoneService it names (by port name or number)" + lint,
			Bad: exService + "---\n" + exTimeout("backend", "        sectionName: grpc\n"), Good: exService + "---\n" + exTimeout("backend", "        sectionName: http\n")},
		{Code: CodeSelector, Severity: w, Summary: "a Dataplane, MeshService or MeshMultiZoneService label selection selects nothing: no pod of the inventory's workloads (in the policy's namespace, or any for the system namespace) or no MeshService carries the labels" + lint,
			Bad: exDeploy + "---\n" + exSelector("wbe"), Good: exDeploy + "---\n" + exSelector("web")},
		{Code: CodeOTelBackend, Severity: w, Summary: "a MeshMetric, MeshTrace or MeshAccessLog backendRef selects no MeshOpenTelemetryBackend by its labels" + lint,
			Bad: exOTel + "---\n" + exMetric("otel-colector"), Good: exOTel + "---\n" + exMetric("otel-collector")},
		{Code: CodeMesh, Severity: w, Summary: "a Kuma object's kuma.io/mesh names a mesh that does not exist (the default mesh always does: Kuma's control plane creates it)" + lint,
			Bad: exMesh + "---\n" + exMeshTimeout("payment"), Good: exMesh + "---\n" + exMeshTimeout("payments")},
		{Code: CodeLinkerdTarget, Severity: w, Summary: "an AuthorizationPolicy targets a Server, HTTPRoute, GRPCRoute or Namespace that does not exist, or a ServerAuthorization names a Server that does not exist" + lint,
			Bad: exServer("web-http", "web") + "---\n" + exAuthn("frontend") + "---\n" + exAP("web-htp", "frontend"), Good: exServer("web-http", "web") + "---\n" + exAuthn("frontend") + "---\n" + exAP("web-http", "frontend")},
		{Code: CodeLinkerdAuthn, Severity: w, Summary: "an AuthorizationPolicy requires a MeshTLSAuthentication, NetworkAuthentication or ServiceAccount that does not exist (Linkerd then authorizes no client, linkerd2 #13166), or a MeshTLSAuthentication's identityRefs or a ServerAuthorization's serviceAccounts name a ServiceAccount or Namespace that does not exist" + lint,
			Bad: exServer("web-http", "web") + "---\n" + exAuthn("frontend") + "---\n" + exAP("web-http", "fronted"), Good: exServer("web-http", "web") + "---\n" + exAuthn("frontend") + "---\n" + exAP("web-http", "frontend")},
		{Code: CodeLinkerdParent, Severity: w, Summary: "a route's Server or Service parent does not exist, or the Service has no such port: Linkerd leaves the route unattached" + lint,
			Bad: exSvcWeb + "---\n" + exRoute("wbe", "web", "8080"), Good: exSvcWeb + "---\n" + exRoute("web", "web", "8080")},
		{Code: CodeLinkerdBackend, Severity: w, Summary: "a route's Service backend does not exist, or has no such port" + lint,
			Bad: exSvcWeb + "---\n" + exRoute("web", "web", "8081"), Good: exSvcWeb + "---\n" + exRoute("web", "web", "8080")},
		{Code: CodeLinkerdPods, Severity: w, Summary: "a Server's podSelector selects no pod of the inventory's workloads in its namespace" + lint,
			Bad: exDeploy + "---\n" + exServer("web-http", "webb"), Good: exDeploy + "---\n" + exServer("web-http", "web")},
	}
}
