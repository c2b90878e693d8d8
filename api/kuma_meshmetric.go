package api

// MeshMetricSpec is a MeshMetric: which metrics the proxies of targetRef publish
// (sidecar profiles, scraped applications) and where (Prometheus, OpenTelemetry). It
// has only `default`; Kuma reads an absent default as an empty conf, which it accepts.
type MeshMetricSpec = Policy[MeshMetricConf]

// KindMeshMetric names the kind for code outside api (examples, messages).
const KindMeshMetric = "MeshMetric"

// MeshMetricConf is MeshMetric's `default`.
type MeshMetricConf struct {
	Sidecar      *MetricSidecar       `json:"sidecar,omitempty"`
	Applications *[]MetricApplication `json:"applications,omitempty"`
	Backends     *[]MetricBackend     `json:"backends,omitempty"`
}

// MetricSidecar selects the proxy's own metrics.
type MetricSidecar struct {
	Profiles      *MetricProfiles `json:"profiles,omitempty"`
	IncludeUnused *bool           `json:"includeUnused,omitempty"`
}

// MetricProfiles combine predefined profiles with include and exclude selectors.
type MetricProfiles struct {
	AppendProfiles *[]MetricProfile  `json:"appendProfiles,omitempty"`
	Exclude        *[]MetricSelector `json:"exclude,omitempty"`
	Include        *[]MetricSelector `json:"include,omitempty"`
}

// MetricProfile names a predefined profile (All, Basic, None).
type MetricProfile struct {
	Name string `json:"name,omitempty"`
}

// MetricSelector matches metric names; Match is a Go regular expression when Type is
// Regex.
type MetricSelector struct {
	Type  string `json:"type,omitempty"`
	Match string `json:"match,omitempty"`
}

// Selector type names of MeshMetric.
const MetricRegex = "Regex"

// MetricApplication is an application endpoint the proxy scrapes. Port is an int64
// pointer: Kuma decodes a uint32 (a negative or huge number cannot be read), and an
// absent port is the CRD's `required` finding.
type MetricApplication struct {
	Name    *string `json:"name,omitempty"`
	Path    string  `json:"path,omitempty"`
	Address *string `json:"address,omitempty"`
	Port    *int64  `json:"port,omitempty"`
}

// MetricBackend is one metrics destination; Type says which of its fields Kuma reads.
type MetricBackend struct {
	Type          string             `json:"type,omitempty"`
	Prometheus    *PrometheusBackend `json:"prometheus,omitempty"`
	OpenTelemetry *MetricOtelBackend `json:"openTelemetry,omitempty"`
}

// Backend type names of MeshMetric.
const (
	MetricPrometheus = "Prometheus"
	MetricOtel       = "OpenTelemetry"
)

// PrometheusBackend is the proxy's Prometheus listener. An absent port is the CRD's
// default, 5670.
type PrometheusBackend struct {
	ClientID *string        `json:"clientId,omitempty"`
	Port     *int64         `json:"port,omitempty"`
	Path     string         `json:"path,omitempty"`
	TLS      *PrometheusTLS `json:"tls,omitempty"`
}

// PrometheusTLS is the TLS mode of the Prometheus listener.
type PrometheusTLS struct {
	Mode string `json:"mode,omitempty"`
}

// MetricOtelBackend pushes metrics to an OpenTelemetry collector, inline (endpoint,
// host:port, deprecated in Kuma 2.14) or a MeshOpenTelemetryBackend (backendRef).
// RefreshInterval is a Go duration string, as Kuma's metav1.Duration reads it.
type MetricOtelBackend struct {
	Endpoint        string              `json:"endpoint,omitempty"`
	BackendRef      *BackendResourceRef `json:"backendRef,omitempty"`
	RefreshInterval *string             `json:"refreshInterval,omitempty"`
}
