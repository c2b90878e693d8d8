package api

import "k8s.io/apimachinery/pkg/util/intstr"

// MeshTraceSpec is a MeshTrace: the tracing backend, sampling and tags of the proxies
// of targetRef. It has only `default`; Kuma reads an absent default as an empty conf
// (which it refuses: backends must be defined).
type MeshTraceSpec = Policy[MeshTraceConf]

// KindMeshTrace names the kind for code outside api (examples, messages).
const KindMeshTrace = "MeshTrace"

// MeshTraceConf is MeshTrace's `default`. Backends is a pointer because Kuma refuses
// an absent list but accepts an empty one (tracing off).
type MeshTraceConf struct {
	Backends *[]TraceBackend `json:"backends,omitempty"`
	Sampling *TraceSampling  `json:"sampling,omitempty"`
	Tags     *[]TraceTag     `json:"tags,omitempty"`
}

// TraceBackend is the one tracing backend; Type says which of its fields Kuma reads.
type TraceBackend struct {
	Type          string            `json:"type,omitempty"`
	Zipkin        *ZipkinBackend    `json:"zipkin,omitempty"`
	Datadog       *DatadogBackend   `json:"datadog,omitempty"`
	OpenTelemetry *TraceOtelBackend `json:"openTelemetry,omitempty"`
}

// Backend type names of MeshTrace.
const (
	TraceZipkin  = "Zipkin"
	TraceDatadog = "Datadog"
	TraceOtel    = "OpenTelemetry"
)

// ZipkinBackend is a Zipkin collector. URL is a pointer so that an absent one is
// left to the CRD's `required`.
type ZipkinBackend struct {
	URL               *string `json:"url,omitempty"`
	TraceID128Bit     *bool   `json:"traceId128bit,omitempty"`
	APIVersion        string  `json:"apiVersion,omitempty"`
	SharedSpanContext *bool   `json:"sharedSpanContext,omitempty"`
}

// DatadogBackend is a Datadog agent, reached at http://host:port and nothing more.
type DatadogBackend struct {
	URL          *string `json:"url,omitempty"`
	SplitService *bool   `json:"splitService,omitempty"`
}

// TraceOtelBackend is an OpenTelemetry collector, inline (endpoint, deprecated in
// Kuma 2.14) or a MeshOpenTelemetryBackend (backendRef).
type TraceOtelBackend struct {
	Endpoint   string              `json:"endpoint,omitempty"`
	BackendRef *BackendResourceRef `json:"backendRef,omitempty"`
}

// TraceSampling are percentages from 0 to 100, integers or decimals written as
// strings ("50.5").
type TraceSampling struct {
	Overall *intstr.IntOrString `json:"overall,omitempty"`
	Client  *intstr.IntOrString `json:"client,omitempty"`
	Random  *intstr.IntOrString `json:"random,omitempty"`
}

// TraceTag is a custom span tag, taken from a literal or from a request header
// (exactly one of them).
type TraceTag struct {
	Name    *string         `json:"name,omitempty"`
	Literal *string         `json:"literal,omitempty"`
	Header  *TraceHeaderTag `json:"header,omitempty"`
}

// TraceHeaderTag takes a tag's value from a header, with a default when it is absent.
type TraceHeaderTag struct {
	Name    string  `json:"name,omitempty"`
	Default *string `json:"default,omitempty"`
}
