package api

// KindHTTPLocalRateLimitPolicy is Linkerd's per-proxy HTTP rate limit on a Server.
const KindHTTPLocalRateLimitPolicy = "HTTPLocalRateLimitPolicy"

// HTTPLocalRateLimitPolicySpec is policy.linkerd.io/v1alpha1 HTTPLocalRateLimitPolicy:
// a total limit, a per-client-identity limit and overrides for named clients, on the
// Server its targetRef names.
type HTTPLocalRateLimitPolicySpec struct {
	TargetRef *LinkerdLocalRef    `json:"targetRef,omitempty"`
	Total     *RateLimit          `json:"total,omitempty"`
	Identity  *RateLimit          `json:"identity,omitempty"`
	Overrides []RateLimitOverride `json:"overrides,omitempty"`
}

// RateLimit is a number of requests per second; a pointer, as absent and 0 differ in
// what the message should say.
type RateLimit struct {
	RequestsPerSecond *int64 `json:"requestsPerSecond,omitempty"`
}

// RateLimitOverride is a limit for the clients (ServiceAccounts) it names.
type RateLimitOverride struct {
	RequestsPerSecond *int64             `json:"requestsPerSecond,omitempty"`
	ClientRefs        []LinkerdTargetRef `json:"clientRefs,omitempty"`
}
