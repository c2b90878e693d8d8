package api

// MeshRateLimitSpec is a MeshRateLimit: local rate limits of inbounds (`from`,
// `rules`) and of gateways (`to`).
type MeshRateLimitSpec = Policy[MeshRateLimitConf]

// MeshRateLimitConf is the conf of MeshRateLimit's items, after Kuma's meshratelimit
// v1alpha1 Conf.
type MeshRateLimitConf struct {
	Local *RateLimitLocal `json:"local,omitempty"`
}

// RateLimitLocal are the limits Envoy enforces on its own, per HTTP request or TCP
// connection.
type RateLimitLocal struct {
	HTTP *RateLimitHTTP `json:"http,omitempty"`
	TCP  *RateLimitTCP  `json:"tcp,omitempty"`
}

// RateLimitHTTP limits requests and says what a limited request gets.
type RateLimitHTTP struct {
	Disabled    *bool          `json:"disabled,omitempty"`
	RequestRate *RateLimitRate `json:"requestRate,omitempty"`
	OnRateLimit *OnRateLimit   `json:"onRateLimit,omitempty"`
}

// OnRateLimit is the response to a limited request: its status and headers.
type OnRateLimit struct {
	Status  *int64        `json:"status,omitempty"`
	Headers *HeaderSetAdd `json:"headers,omitempty"`
}

// RateLimitTCP limits new connections.
type RateLimitTCP struct {
	Disabled       *bool          `json:"disabled,omitempty"`
	ConnectionRate *RateLimitRate `json:"connectionRate,omitempty"`
}

// RateLimitRate is num per interval; the CRD requires both (nil when absent).
type RateLimitRate struct {
	Num      *int64  `json:"num,omitempty"`
	Interval *string `json:"interval,omitempty"`
}
