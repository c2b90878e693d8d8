package api

// MeshOpenTelemetryBackendSpec is the spec of a MeshOpenTelemetryBackend, an
// OpenTelemetry collector that MeshMetric, MeshTrace and MeshAccessLog refer to.
// Every field is optional: pointers tell absent from empty, as Kuma's validator does.
type MeshOpenTelemetryBackendSpec struct {
	Endpoint *OTelBackendEndpoint `json:"endpoint,omitempty"`
	Protocol *string              `json:"protocol,omitempty"`
	Env      *OTelBackendEnv      `json:"env,omitempty"`
}

// OTelBackendEndpoint is where the collector listens; path is for http only.
type OTelBackendEndpoint struct {
	Address *string `json:"address,omitempty"`
	Port    *int32  `json:"port,omitempty"`
	Path    *string `json:"path,omitempty"`
}

// OTelBackendEnv says whether and how the proxy's OTEL_* environment shapes the
// exporter.
type OTelBackendEnv struct {
	Mode                 string `json:"mode,omitempty"`
	Precedence           string `json:"precedence,omitempty"`
	AllowSignalOverrides *bool  `json:"allowSignalOverrides,omitempty"`
}

// KindMeshOpenTelemetryBackend is the kind's name, for code outside api that must spell it.
const KindMeshOpenTelemetryBackend = "MeshOpenTelemetryBackend"
