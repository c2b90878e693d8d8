package validate

// Codes of Kuma's validator rules for the confs of the resilience policies
// (issue 15): one per kind, so that a CI filter can name a kind, plus one warning
// for settings Kuma accepts but warns about.
const (
	CodeCircuitBreakerConf   = "MG140"
	CodeHealthCheckConf      = "MG141"
	CodeRetryConf            = "MG142"
	CodeMeshTimeoutConf      = "MG143"
	CodeRateLimitConf        = "MG144"
	CodeResilienceDeprecated = "MG145"
)
