package validate

// Rule codes of the confs of MeshFaultInjection, MeshLoadBalancingStrategy,
// MeshPassthrough, MeshProxyPatch and MeshTLS (issue 15): one code per kind, for
// what Kuma 2.14's validator of that kind refuses beyond the CRD schema.
const (
	CodeFaultInjectionConf = "MG150"
	CodeLoadBalancingConf  = "MG151"
	CodePassthroughConf    = "MG152"
	CodeProxyPatchConf     = "MG153"
	CodeMeshTLSConf        = "MG154"
)
