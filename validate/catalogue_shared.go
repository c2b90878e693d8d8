package validate

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
