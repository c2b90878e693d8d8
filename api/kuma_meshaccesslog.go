package api

// MeshAccessLogSpec is a MeshAccessLog: where the proxies of targetRef write the
// access logs of their outbound (to), inbound (from) or rule-matched traffic.
type MeshAccessLogSpec = Policy[MeshAccessLogConf]

// KindMeshAccessLog names the kind for code outside api (examples, messages).
const KindMeshAccessLog = "MeshAccessLog"

// MeshAccessLogConf is the conf of MeshAccessLog's to/from/rules items. Backends is
// a pointer because Kuma tells an absent list (refused: "must be defined") from an
// empty one (accepted: it turns access logs off).
type MeshAccessLogConf struct {
	Backends *[]AccessLogBackend `json:"backends,omitempty"`
}

// AccessLogBackend is one access log destination. Type says which of the three
// backend fields Kuma reads; the others are ignored.
type AccessLogBackend struct {
	Type          string                `json:"type,omitempty"`
	TCP           *AccessLogTCPBackend  `json:"tcp,omitempty"`
	File          *AccessLogFileBackend `json:"file,omitempty"`
	OpenTelemetry *AccessLogOtelBackend `json:"openTelemetry,omitempty"`
}

// Backend type names of MeshAccessLog.
const (
	AccessLogTCP  = "Tcp"
	AccessLogFile = "File"
	AccessLogOtel = "OpenTelemetry"
)

// AccessLogTCPBackend sends logs to a TCP collector. Address is a pointer so that an
// absent one is left to the CRD's `required` (one finding, not two).
type AccessLogTCPBackend struct {
	Format  *AccessLogFormat `json:"format,omitempty"`
	Address *string          `json:"address,omitempty"`
}

// AccessLogFileBackend writes logs to a file in the proxy's container.
type AccessLogFileBackend struct {
	Format *AccessLogFormat `json:"format,omitempty"`
	Path   *string          `json:"path,omitempty"`
}

// AccessLogOtelBackend sends logs to an OpenTelemetry collector, named either inline
// (endpoint, deprecated in Kuma 2.14) or by a MeshOpenTelemetryBackend (backendRef).
type AccessLogOtelBackend struct {
	Attributes []OtelAttribute     `json:"attributes,omitempty"`
	Body       Free                `json:"body,omitempty"` // an OTLP AnyValue: free-form by design
	Endpoint   string              `json:"endpoint,omitempty"`
	BackendRef *BackendResourceRef `json:"backendRef,omitempty"`
}

// OtelAttribute is one attribute added to every OpenTelemetry log record; the value
// may hold Envoy placeholders, the key may not.
type OtelAttribute struct {
	Key   *string `json:"key,omitempty"`
	Value *string `json:"value,omitempty"`
}

// AccessLogFormat is the line format of a file or TCP backend: Type says whether
// Plain or JSON is read.
type AccessLogFormat struct {
	Type            string          `json:"type,omitempty"`
	Plain           *string         `json:"plain,omitempty"`
	JSON            *[]JSONLogField `json:"json,omitempty"`
	OmitEmptyValues *bool           `json:"omitEmptyValues,omitempty"`
}

// Format type names of MeshAccessLog.
const (
	AccessLogPlain = "Plain"
	AccessLogJSON  = "Json"
)

// JSONLogField is one key of a JSON access log line.
type JSONLogField struct {
	Key   *string `json:"key,omitempty"`
	Value *string `json:"value,omitempty"`
}

// BackendResourceRef points a policy's OpenTelemetry backend at a
// MeshOpenTelemetryBackend by labels (Kuma 2.14), instead of an inline endpoint. The
// CRD allows only that kind; Kuma's validator adds that labels must select something.
type BackendResourceRef struct {
	Kind   string            `json:"kind,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
}
