package validate

// MeshTrafficPermission codes of issue 15 (Kuma 2.14 parity). MG120-MG123, the older
// MeshTrafficPermission codes, are declared with the others in catalogue.go.
const (
	// CodeMTPFromDeprecated is Kuma 2.14's deprecation of MeshTrafficPermission `from`
	// (a code of its own, so that a pipeline can silence it apart from MG116 while it
	// migrates to `rules`).
	CodeMTPFromDeprecated = "MG190"
	// CodeMTPEmptyMatcher is a `rules` matcher with neither spiffeID nor sni, which
	// Kuma accepts and programs as nothing.
	CodeMTPEmptyMatcher = "MG191"
)

// mtpCatalogue documents the MeshTrafficPermission codes of issue 15.
func mtpCatalogue() []RuleDoc {
	return []RuleDoc{
		{Code: CodeMTPFromDeprecated, Severity: SeverityWarning,
			Summary: "a MeshTrafficPermission uses 'from', which Kuma 2.14 deprecates (removed in 3.0); write 'rules' with spiffeID matchers",
			Bad:     mtpGood, Good: spiffeGood},
		{Code: CodeMTPEmptyMatcher, Severity: SeverityWarning,
			Summary: "a MeshTrafficPermission matcher has neither spiffeID nor sni (for example only the SPIFFE-matches MADR's spiffeId, method or path, which Kuma's CRD drops): Kuma programs nothing for it, it matches no client (and when no matcher of its list has a condition, Envoy refuses the RBAC filter Kuma builds)",
			Bad:     mtpHead + "spec:\n  rules:\n    - default:\n        allow:\n          - {}\n", Good: spiffeGood},
	}
}
