package validate

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
