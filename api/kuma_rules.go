package api

// KindMeshTCPRoute is the Kuma route whose `to` items contribute their first rule
// (not their `default`) to the merge, so the rules engine tells it apart.
const KindMeshTCPRoute = "MeshTCPRoute"

// KumaFromAsRules reports the kinds whose `from` items Kuma 2.14 also reads as
// `rules` entries without matches (their policy descriptors' isFromAsRules), so an
// inbound's rules come from either section. MeshFaultInjection deprecates `from`
// too (FromDeprecation) but Kuma does not convert it.
func KumaFromAsRules(kind string) bool {
	switch kind {
	case KindMeshAccessLog, "MeshCircuitBreaker", "MeshRateLimit", KindMeshTimeout, "MeshTLS":
		return true
	}
	return false
}
