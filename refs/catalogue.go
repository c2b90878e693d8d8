package refs

// Codes of references that resolve to nothing (MG401-MG449), documented with
// their examples in rules/catalogue.yaml. All are warnings:
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
	// CodeKumaGrant: under Kuma 3.0 (--kuma-version 3.0-preview), a Gateway API
	// HTTPRoute's backend in another namespace has no ReferenceGrant there, so
	// Kuma does not program it (kumahq/kuma #18075).
	CodeKumaGrant = "MG406"
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
