package validate

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
