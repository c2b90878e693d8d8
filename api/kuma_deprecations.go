package api

// fromDeprecations are Kuma 2.14.3's deprecation warnings for `from`, by kind, in
// Kuma's words (each kind's Deprecations(), which its webhook returns as admission
// warnings). MeshTrafficPermission's, worded differently, has a code of its own.
var fromDeprecations = map[string]string{
	KindMeshAccessLog:    "'from' field is deprecated, use 'rules' instead",
	"MeshCircuitBreaker": "'from' field is deprecated, use 'rules' instead",
	"MeshFaultInjection": "'from' field is deprecated, use 'rules' with SPIFFE-based 'matches' instead",
	"MeshRateLimit":      "'from' field is deprecated, use 'rules' instead",
	KindMeshTimeout:      "'from' field is deprecated, use 'rules' instead",
	"MeshTLS":            "'from' field is deprecated, use 'rules' instead",
}

// FromDeprecation is Kuma 2.14's warning for a non-empty `from` on kind, "" when
// Kuma gives none for it.
func FromDeprecation(kind string) string { return fromDeprecations[kind] }
