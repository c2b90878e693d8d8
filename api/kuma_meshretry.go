package api

// MeshRetrySpec is a MeshRetry: retries of outbound requests (`to` only).
type MeshRetrySpec = Policy[MeshRetryConf]

// MeshRetryConf is the conf of MeshRetry's `to` items, after Kuma's meshretry
// v1alpha1 Conf. Durations are the CRD's strings; Kuma's uint32 counters are int64
// so that the validator reports a negative one.
type MeshRetryConf struct {
	TCP  *RetryTCP  `json:"tcp,omitempty"`
	HTTP *RetryHTTP `json:"http,omitempty"`
	GRPC *RetryGRPC `json:"grpc,omitempty"`
}

// RetryTCP retries TCP connects.
type RetryTCP struct {
	MaxConnectAttempt *int64 `json:"maxConnectAttempt,omitempty"`
}

// RetryHTTP are the HTTP retries. RetryOn items are condition names or HTTP status
// codes written as strings ("503").
type RetryHTTP struct {
	NumRetries               *int64              `json:"numRetries,omitempty"`
	PerTryTimeout            *string             `json:"perTryTimeout,omitempty"`
	BackOff                  *RetryBackOff       `json:"backOff,omitempty"`
	RateLimitedBackOff       *RateLimitedBackOff `json:"rateLimitedBackOff,omitempty"`
	RetryOn                  *[]string           `json:"retryOn,omitempty"`
	RetriableResponseHeaders *[]RetryHeaderMatch `json:"retriableResponseHeaders,omitempty"`
	RetriableRequestHeaders  *[]RetryHeaderMatch `json:"retriableRequestHeaders,omitempty"`
	HostSelection            *[]RetryPredicate   `json:"hostSelection,omitempty"`
	HostSelectionMaxAttempts *int64              `json:"hostSelectionMaxAttempts,omitempty"`
}

// RetryGRPC are the gRPC retries; RetryOn items are gRPC status names.
type RetryGRPC struct {
	NumRetries         *int64              `json:"numRetries,omitempty"`
	PerTryTimeout      *string             `json:"perTryTimeout,omitempty"`
	BackOff            *RetryBackOff       `json:"backOff,omitempty"`
	RateLimitedBackOff *RateLimitedBackOff `json:"rateLimitedBackOff,omitempty"`
	RetryOn            *[]string           `json:"retryOn,omitempty"`
}

// RetryBackOff is the exponential back-off between retries.
type RetryBackOff struct {
	BaseInterval *string `json:"baseInterval,omitempty"`
	MaxInterval  *string `json:"maxInterval,omitempty"`
}

// RateLimitedBackOff backs off as the upstream's rate-limit reset headers say.
type RateLimitedBackOff struct {
	ResetHeaders *[]ResetHeader `json:"resetHeaders,omitempty"`
	MaxInterval  *string        `json:"maxInterval,omitempty"`
}

// ResetHeader names a header that says when to retry, and its format.
type ResetHeader struct {
	Name   string `json:"name"`
	Format string `json:"format"`
}

// RetryHeaderMatch matches a request or response header that makes a request
// retriable; the CRD checks type and name.
type RetryHeaderMatch struct {
	Type  *string `json:"type,omitempty"`
	Name  string  `json:"name"`
	Value *string `json:"value,omitempty"`
}

// RetryPredicate is one host selection predicate. UpdateFrequency is nil when absent
// (the API server defaults it to 2).
type RetryPredicate struct {
	Predicate       string             `json:"predicate"`
	Tags            *map[string]string `json:"tags,omitempty"`
	UpdateFrequency *int64             `json:"updateFrequency,omitempty"`
}
