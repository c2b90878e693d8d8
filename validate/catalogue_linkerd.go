package validate

// Codes of the Linkerd kinds issue 16 added (EgressNetwork, HTTPLocalRateLimitPolicy,
// HTTPRoute and the Gateway API routes Linkerd validates).
const (
	CodeLinkerdEgressNetwork     = "MG360"
	CodeLinkerdRateLimit         = "MG361"
	CodeLinkerdRouteParent       = "MG362"
	CodeLinkerdRouteMatch        = "MG363"
	CodeLinkerdRouteFilter       = "MG364"
	CodeLinkerdRouteBackend      = "MG365"
	CodeLinkerdRouteTimeouts     = "MG366"
	CodeLinkerdRouteRules        = "MG367"
	CodeLinkerdRouteAnnotation   = "MG368"
	CodeLinkerdMissingEgressNet  = "MG369"
	CodeLinkerdRateLimitConflict = "MG370"
)
