package validate

// Codes of Kuma 2.14 behaviours meshguard reports since issue 26.
const (
	// CodeFromDeprecated is Kuma 2.14's deprecation warning for `from` on the
	// kinds other than MeshTrafficPermission (MG190) that deprecate it.
	CodeFromDeprecated = "MG192"
	// CodeSpiffePrefix is a SPIFFE Prefix matcher, which Kuma matches as a plain
	// string prefix: it admits identities that continue its last segment.
	CodeSpiffePrefix = "MG193"
)

// kuma214Catalogue documents the codes above.
func kuma214Catalogue() []RuleDoc {
	return []RuleDoc{
		{Code: CodeFromDeprecated, Severity: SeverityWarning,
			Summary: "a MeshAccessLog, MeshCircuitBreaker, MeshFaultInjection, MeshRateLimit, MeshTimeout or MeshTLS uses 'from', which Kuma 2.14 deprecates with a warning (removed in 3.0); write 'rules'",
			Bad:     mtHead + "spec:\n  targetRef:\n    kind: Mesh\n  from:\n    - targetRef:\n        kind: Mesh\n      default:\n        idleTimeout: 1h\n",
			Good:    mtHead + "spec:\n  targetRef:\n    kind: Mesh\n  rules:\n    - default:\n        idleTimeout: 1h\n"},
		{Code: CodeSpiffePrefix, Severity: SeverityWarning,
			Summary: "a spiffeID matcher of type Prefix: Kuma matches it as a plain string prefix, so spiffe://td/ns/web also admits spiffe://td/ns/webshop/... (and Kuma refuses a value ending in '/'); use Exact for the identities meant",
			Bad:     mtpHead + "spec:\n  rules:\n    - default:\n        allow:\n          - spiffeID:\n              type: Prefix\n              value: spiffe://td.mesh/ns/web\n",
			Good:    mtpHead + "spec:\n  rules:\n    - default:\n        allow:\n          - spiffeID:\n              type: Exact\n              value: spiffe://td.mesh/ns/web/sa/frontend\n"},
	}
}
