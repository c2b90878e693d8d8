package validate

import (
	"fmt"
	"strings"
)

// Codes of the rules every Kuma targetRef policy shares (issue 15) and of the
// MeshHTTPRoute and MeshTCPRoute contents.
const (
	// CodeSections: sections Kuma refuses together (rules with to/from) or with
	// the top-level target (e.g. from on a MeshGateway).
	CodeSections = "MG124"
	// CodeMatch: a rules[].matches entry Kuma refuses (spiffeID, sni).
	CodeMatch = "MG125"
	// CodeNoEffect: Kuma accepts the policy, but it configures nothing.
	CodeNoEffect = "MG126"
	// CodeHTTPRoute: a MeshHTTPRoute rule Kuma's validator refuses.
	CodeHTTPRoute = "MG160"
	// CodeTCPRoute: a MeshTCPRoute rule Kuma's validator refuses.
	CodeTCPRoute = "MG161"
)

// Examples of the shared rules' catalogue entries.
const (
	mtRules   = mtHead + "spec:\n  targetRef:\n    kind: Mesh\n  rules:\n    - default:\n        idleTimeout: 1h\n"
	mtMatches = mtHead + "spec:\n  targetRef:\n    kind: Mesh\n  rules:\n    - matches:\n        - spiffeID:\n            type: Exact\n            value: %s\n      default:\n        http:\n          requestTimeout: 10s\n"
	retryHead = "apiVersion: kuma.io/v1alpha1\nkind: MeshRetry\nmetadata:\n  name: retries\n  namespace: kuma-system\nspec:\n  targetRef:\n    kind: Mesh\n"
	routeHead = "metadata:\n  name: route\n  namespace: kuma-system\nspec:\n  to:\n    - targetRef:\n        kind: MeshService\n        name: backend\n      rules:\n"
	httpRoute = "apiVersion: kuma.io/v1alpha1\nkind: MeshHTTPRoute\n" + routeHead +
		"        - matches:\n            - path:\n                type: PathPrefix\n                value: %s\n          default:\n            backendRefs:\n              - kind: MeshService\n                name: backend-v2\n"
	tcpRoute = "apiVersion: kuma.io/v1alpha1\nkind: MeshTCPRoute\n" + routeHead + "        - default:\n            backendRefs:%s\n"
)

// sharedCatalogue documents the codes above.
func sharedCatalogue() []RuleDoc {
	return []RuleDoc{
		{Code: CodeSections, Severity: SeverityError, Summary: "sections Kuma refuses together ('rules' with 'to' or 'from') or with this top-level targetRef (e.g. 'from' when the policy may apply to gateways)",
			Bad: strings.Replace(mtRules, "  rules:", "  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        idleTimeout: 1h\n  rules:", 1), Good: mtRules},
		{Code: CodeMatch, Severity: SeverityError, Summary: "a rules[].matches entry Kuma refuses: empty, an invalid SPIFFE ID or type, an SNI match that is not Exact or not a DNS name",
			Bad: fmt.Sprintf(mtMatches, "td.mesh/ns/default/sa/web"), Good: fmt.Sprintf(mtMatches, "spiffe://td.mesh/ns/default/sa/web")},
		{Code: CodeNoEffect, Severity: SeverityWarning, Summary: "Kuma accepts the object, but it has no effect: a policy or route that configures nothing, a backend port outside 1-65535",
			Bad: retryHead, Good: retryHead + "  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        tcp:\n          maxConnectAttempt: 3\n"},
		{Code: CodeHTTPRoute, Severity: SeverityError, Summary: "a MeshHTTPRoute rule Kuma refuses: path match, repeated query parameter, filter settings, prefix rewrite without prefix matches, hostnames or backendRefs on or off a MeshGateway",
			Bad: fmt.Sprintf(httpRoute, "api"), Good: fmt.Sprintf(httpRoute, "/api")},
		{Code: CodeTCPRoute, Severity: SeverityError, Summary: "a MeshTCPRoute rule without backendRefs",
			Bad: fmt.Sprintf(tcpRoute, " []"), Good: fmt.Sprintf(tcpRoute, "\n              - kind: MeshService\n                name: backend-v2\n                port: 5432")},
	}
}
