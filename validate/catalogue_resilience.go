package validate

import "fmt"

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

// policyDoc is a system-namespace policy (kindLine is "kind: <Kind>") with the given spec lines, for the
// examples below.
func policyDoc(kindLine, spec string) string {
	return "apiVersion: kuma.io/v1alpha1\n" + kindLine + "\nmetadata:\n  name: example\n  namespace: kuma-system\nspec:\n" + spec
}

// Example specs of the resilience catalogue.
const (
	cbSpec = "  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        outlierDetection:\n          interval: %s\n          detectors:\n            totalFailures:\n              consecutive: 5\n"
	hcSpec = "  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        interval: 10s\n        http:\n          path: /health\n          expectedStatuses: [%s]\n"
	rtSpec = "  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        http:\n          numRetries: 3\n          retryOn: [%s]\n"
	mtSpec = "  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        connectionTimeout: %s\n"
	rlSpec = "  targetRef:\n    kind: Dataplane\n    labels:\n      app: web\n  rules:\n    - default:\n        local:\n          http:\n            requestRate:\n              num: 100\n              interval: %s\n            onRateLimit:\n              status: 429\n"
	hcWarn = "  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        healthyPanicThreshold: 50\n        tcp: {}\n"
	hcOK   = "  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        tcp: {}\n"
)

func resilienceCatalogue() []RuleDoc {
	return []RuleDoc{
		{Code: CodeCircuitBreakerConf, Severity: SeverityError, Summary: "a MeshCircuitBreaker conf Kuma's validator refuses (nothing configured, zero limits or counts, durations not above zero, percentages outside 0-100, outlier detection without detectors)",
			Bad: policyDoc("kind: MeshCircuitBreaker", fmt.Sprintf(cbSpec, "0s")), Good: policyDoc("kind: MeshCircuitBreaker", fmt.Sprintf(cbSpec, "10s"))},
		{Code: CodeHealthCheckConf, Severity: SeverityError, Summary: "a MeshHealthCheck conf Kuma's validator refuses (no http/tcp/grpc, durations or thresholds not above zero, percentages outside 0-100, bad eventLogPath, empty path, status codes outside 100-599)",
			Bad: policyDoc("kind: MeshHealthCheck", fmt.Sprintf(hcSpec, "99")), Good: policyDoc("kind: MeshHealthCheck", fmt.Sprintf(hcSpec, "200"))},
		{Code: CodeRetryConf, Severity: SeverityError, Summary: "a MeshRetry conf Kuma's validator refuses (empty tcp/http/grpc or backOff, rateLimitedBackOff without resetHeaders, unknown http.retryOn, incomplete or repeated host selection predicates)",
			Bad: policyDoc("kind: MeshRetry", fmt.Sprintf(rtSpec, "\"5XX\"")), Good: policyDoc("kind: MeshRetry", fmt.Sprintf(rtSpec, "5xx, \"503\""))},
		{Code: CodeMeshTimeoutConf, Severity: SeverityError, Summary: "a MeshTimeout conf Kuma's validator refuses (no timeout, a duration that does not parse or is negative, connection timeouts on a MeshHTTPRoute target, 'from' on a route or gateway target, timeouts a spiffeID rule cannot set)",
			Bad: policyDoc("kind: MeshTimeout", fmt.Sprintf(mtSpec, "-5s")), Good: policyDoc("kind: MeshTimeout", fmt.Sprintf(mtSpec, "5s"))},
		{Code: CodeRateLimitConf, Severity: SeverityError, Summary: "a MeshRateLimit Kuma's validator refuses (from/rules on a target that may include gateways, to on one that does not, no local http/tcp, zero rates or intervals of 50ms or less, local.tcp in a spiffeID rule)",
			Bad: policyDoc("kind: MeshRateLimit", fmt.Sprintf(rlSpec, "10ms")), Good: policyDoc("kind: MeshRateLimit", fmt.Sprintf(rlSpec, "1s"))},
		{Code: CodeResilienceDeprecated, Severity: SeverityWarning, Summary: "a setting Kuma accepts with a warning: MeshHealthCheck healthyPanicThreshold (moved to MeshCircuitBreaker), a MeshRateLimit onRateLimit.status below 400",
			Bad: policyDoc("kind: MeshHealthCheck", hcWarn), Good: policyDoc("kind: MeshHealthCheck", hcOK)},
	}
}
