package validate

import (
	"strings"

	"github.com/meshguard/meshguard/api"
)

// Codes of Kuma's validator rules for the observability policies (issue 15): one per
// kind for its conf, one for the OpenTelemetry backend the three kinds share (and that
// refers to a MeshOpenTelemetryBackend), and one warning for Kuma's deprecation of
// the inline OpenTelemetry endpoint.
const (
	CodeAccessLogConf = "MG130"
	CodeTraceConf     = "MG131"
	CodeMetricConf    = "MG132"
	CodeOtelBackend   = "MG133"
	CodeOtelEndpoint  = "MG134"
)

// obsDoc is a system-namespace policy of the given kind with the given spec lines,
// for the examples below.
func obsDoc(kind, spec string) string {
	return "apiVersion: kuma.io/v1alpha1\nkind: " + kind + "\nmetadata:\n  name: observability\n  namespace: kuma-system\nspec:\n" + spec
}

// Example specs of the observability catalogue; %s marks the part a bad example
// replaces.
const (
	obsALSpec   = "  targetRef:\n    kind: Mesh\n  from:\n    - targetRef:\n        kind: Mesh\n      default:\n        backends:\n          - type: File\n            file:\n              path: %s\n"
	obsMTSpec   = "  targetRef:\n    kind: Mesh\n  default:\n    backends:\n      - type: Datadog\n        datadog:\n          url: %s\n"
	obsMMSpec   = "  targetRef:\n    kind: Mesh\n  default:\n    sidecar:\n      profiles:\n        exclude:\n          - type: Regex\n            match: %s\n"
	obsOtelSpec = "  targetRef:\n    kind: Mesh\n  default:\n    backends:\n      - type: OpenTelemetry\n        openTelemetry:\n%s"
)

func obsFill(format, s string) string { return strings.Replace(format, "%s", s, 1) }

const (
	obsOtelRef      = "          backendRef:\n            kind: MeshOpenTelemetryBackend\n            labels:\n              kuma.io/otel: main\n"
	obsOtelEndpoint = "          endpoint: otel-collector.observability:4317\n"
)

func observabilityCatalogue() []RuleDoc {
	return []RuleDoc{
		{Code: CodeAccessLogConf, Severity: SeverityError,
			Summary: "a MeshAccessLog conf Kuma's validator refuses: backends not listed, a backend without its section, a relative file path, a TCP address that is not host:port, an empty or unusable plain/json format, an OpenTelemetry attribute key that is not a static lowercase name",
			Bad:     obsDoc(api.KindMeshAccessLog, obsFill(obsALSpec, "logs/access.log")), Good: obsDoc(api.KindMeshAccessLog, obsFill(obsALSpec, "/var/log/access.log"))},
		{Code: CodeTraceConf, Severity: SeverityError,
			Summary: "a MeshTrace conf Kuma's validator refuses: no backends list (also when default is absent), a backend without its section, a Zipkin URL that is not a URL, a Datadog URL that is not http://host:port, a sampling value that is not a percentage, a tag without a name or with not exactly one of literal and header",
			Bad:     obsDoc(api.KindMeshTrace, obsFill(obsMTSpec, "https://datadog-agent:8126/v1")), Good: obsDoc(api.KindMeshTrace, obsFill(obsMTSpec, "http://datadog-agent:8126"))},
		{Code: CodeMetricConf, Severity: SeverityError,
			Summary: "a MeshMetric conf Kuma's validator refuses: a Regex selector that does not compile, an application or Prometheus port outside 1-65535, a backend without its section, a refreshInterval that is not a duration",
			Bad:     obsDoc(api.KindMeshMetric, obsFill(obsMMSpec, "'envoy_(cluster'")), Good: obsDoc(api.KindMeshMetric, obsFill(obsMMSpec, "'envoy_cluster_.*'"))},
		{Code: CodeOtelBackend, Severity: SeverityError,
			Summary: "an OpenTelemetry backend (MeshAccessLog, MeshTrace, MeshMetric) sets both or neither of endpoint and backendRef, an endpoint that is a URL rather than host:port, or a backendRef without labels to select its MeshOpenTelemetryBackend",
			Bad:     obsDoc(api.KindMeshTrace, obsFill(obsOtelSpec, obsOtelRef+obsOtelEndpoint)), Good: obsDoc(api.KindMeshTrace, obsFill(obsOtelSpec, obsOtelRef))},
		{Code: CodeOtelEndpoint, Severity: SeverityWarning,
			Summary: "an OpenTelemetry backend names its collector with the inline endpoint, which Kuma 2.14 deprecates; create a MeshOpenTelemetryBackend and refer to it with backendRef",
			Bad:     obsDoc(api.KindMeshTrace, obsFill(obsOtelSpec, obsOtelEndpoint)), Good: obsDoc(api.KindMeshTrace, obsFill(obsOtelSpec, obsOtelRef))},
	}
}
