package validate

import (
	"strings"

	"github.com/meshguard/meshguard/api"
)

// Codes of Kuma's validators for its non-policy resources (issue 15): one per kind,
// and one for what Kuma's admission refuses of any resource kind.
const (
	CodeMesh                     = "MG170"
	CodeMeshService              = "MG171"
	CodeMeshExternalService      = "MG172"
	CodeMeshMultiZoneService     = "MG173"
	CodeHostnameGenerator        = "MG174"
	CodeMeshOpenTelemetryBackend = "MG175"
	CodeWorkload                 = "MG176"
	CodeResourceAdmission        = "MG177"
)

// resource returns a manifest of a Kuma resource kind in the system namespace
// (cluster-scoped kinds get none).
func resource[K ~string](kind K, name, spec string) string {
	ns := "\n  namespace: kuma-system"
	if string(kind) == string(api.RefMesh) {
		ns = ""
	}
	return "apiVersion: kuma.io/v1alpha1\nkind: " + string(kind) + "\nmetadata:\n  name: " + name + ns + "\nspec:\n" + spec
}

const (
	msGood   = "  selector:\n    dataplaneTags:\n      app: redis\n  ports:\n    - name: tcp\n      port: 6379\n      targetPort: 6379\n      appProtocol: tcp\n"
	mesGood  = "  match:\n    type: HostnameGenerator\n    port: 443\n    protocol: http\n  endpoints:\n    - address: httpbin.org\n      port: 443\n  tls:\n    enabled: true\n"
	mzmsGood = "  selector:\n    meshService:\n      matchLabels:\n        kuma.io/display-name: backend\n  ports:\n    - port: 80\n      appProtocol: http\n"
	otelGood = "  endpoint:\n    address: otel-collector.observability\n    port: 4317\n  protocol: grpc\n"
)

// resourcesCatalogue documents the resource validators' codes.
func resourcesCatalogue() []RuleDoc {
	return []RuleDoc{
		{Code: CodeMesh, Severity: SeverityError, Summary: "a Mesh Kuma refuses: mTLS backends (more than one, unknown type, enabledBackend not among them, rotation), logging/tracing/metrics backends, constraints' tags, zoneEgress without mTLS",
			Bad:  resource(api.RefMesh, "default", "  mtls:\n    enabledBackend: ca-1\n    backends:\n      - name: ca-2\n        type: builtin\n"),
			Good: resource(api.RefMesh, "default", "  mtls:\n    enabledBackend: ca-1\n    backends:\n      - name: ca-1\n        type: builtin\n")},
		{Code: CodeMeshService, Severity: SeverityError, Summary: "a MeshService Kuma refuses (a name over 63 characters, more than one kind of selector); warnings for names and port names Kuma deprecates",
			Bad:  resource(api.RefMeshService, "redis", strings.Replace(msGood, "      app: redis\n", "      app: redis\n    dataplaneRef:\n      name: redis-0\n", 1)),
			Good: resource(api.RefMeshService, "redis", msGood)},
		{Code: CodeMeshExternalService, Severity: SeverityError, Summary: "a MeshExternalService Kuma refuses: match, endpoints that are no IP or host name, TLS versions and verification, client cert without key",
			Bad:  resource(api.RefMeshExternalService, "httpbin", strings.Replace(mesGood, "address: httpbin.org", "address: https://httpbin.org", 1)),
			Good: resource(api.RefMeshExternalService, "httpbin", mesGood)},
		{Code: CodeMeshMultiZoneService, Severity: SeverityError, Summary: "a MeshMultiZoneService Kuma refuses: no selector labels, no ports, an empty port name, an unsupported appProtocol",
			Bad:  resource(api.RefMeshMultiZoneService, "backend", strings.Replace(mzmsGood, "appProtocol: http", "appProtocol: mysql", 1)),
			Good: resource(api.RefMeshMultiZoneService, "backend", mzmsGood)},
		{Code: CodeHostnameGenerator, Severity: SeverityError, Summary: "a HostnameGenerator Kuma refuses: not exactly one selector, a template that does not parse or render to a lower-case DNS name",
			Bad:  resource(api.KindHostnameGenerator, "local", "  selector:\n    meshService: {}\n  template: \"{{ .Name }}_svc.mesh\"\n"),
			Good: resource(api.KindHostnameGenerator, "local", "  selector:\n    meshService: {}\n  template: \"{{ .Name }}.svc.mesh\"\n")},
		{Code: CodeMeshOpenTelemetryBackend, Severity: SeverityError, Summary: "a MeshOpenTelemetryBackend Kuma refuses: an address that is no IP or host name, a port out of range, a path with grpc or not absolute",
			Bad:  resource(api.KindMeshOpenTelemetryBackend, "otel", strings.Replace(otelGood, "    port: 4317\n", "    port: 4317\n    path: /v1/traces\n", 1)),
			Good: resource(api.KindMeshOpenTelemetryBackend, "otel", otelGood)},
		{Code: CodeWorkload, Severity: SeverityError, Summary: "a Workload whose name is longer than Kuma's 253 characters",
			Bad:  resource(api.KindWorkload, strings.Repeat("w", 254), "  {}\n"),
			Good: resource(api.KindWorkload, "frontend", "  {}\n")},
		{Code: CodeResourceAdmission, Severity: SeverityError, Summary: "a resource Kuma's admission refuses here: a kind the other control plane provides (MeshService, Workload, Dataplane on global; Mesh, MeshMultiZoneService on a federated zone), or a kind that lives only in the system namespace (MeshExternalService, HostnameGenerator, MeshOpenTelemetryBackend, MeshIdentity, MeshTrust); in the webhook also a non-privileged DELETE, on a federated zone, of a kind global provides",
			Bad:  strings.Replace(resource(api.RefMeshExternalService, "httpbin", mesGood), "namespace: kuma-system", "namespace: payments", 1),
			Good: resource(api.RefMeshExternalService, "httpbin", mesGood)},
	}
}
