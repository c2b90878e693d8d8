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

// shapingHead starts a system-namespace Kuma policy for the catalogue's examples;
// kindLine is "kind: <Kind>".
func shapingHead(kindLine string) string {
	return "apiVersion: kuma.io/v1alpha1\n" + kindLine + "\nmetadata:\n  name: example\n  namespace: kuma-system\n  labels:\n    kuma.io/mesh: default\nspec:\n"
}

const (
	shapingFIFrom = "  targetRef:\n    kind: Dataplane\n    labels:\n      app: web\n  from:\n    - targetRef:\n        kind: Mesh\n      default:\n        http:\n          - abort:\n"
	shapingLBTo   = "  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        kind: MeshService\n        name: backend\n      default:\n        localityAwareness:\n          localZone:\n            affinityTags:\n"
	shapingPTHead = "  targetRef:\n    kind: Mesh\n  default:\n    appendMatch:\n      - type: Domain\n"
	shapingPPHead = "  targetRef:\n    kind: Mesh\n  default:\n    appendModifications:\n      - cluster:\n"
	shapingTLSTop = "  from:\n    - targetRef:\n        kind: Mesh\n      default:\n        tlsVersion:\n"
)

// shapingCatalogue documents codes MG150-MG154.
func shapingCatalogue() []RuleDoc {
	return []RuleDoc{
		{Code: CodeFaultInjectionConf, Severity: SeverityError,
			Summary: "a MeshFaultInjection fault Kuma refuses: status outside 100-599, percentage outside 0-100, negative delay, or a bandwidth without a kbps/Mbps/Gbps unit",
			Bad:     shapingHead("kind: MeshFaultInjection") + shapingFIFrom + "              httpStatus: 700\n              percentage: 50\n",
			Good:    shapingHead("kind: MeshFaultInjection") + shapingFIFrom + "              httpStatus: 503\n              percentage: 50\n"},
		{Code: CodeLoadBalancingConf, Severity: SeverityError,
			Summary: "a MeshLoadBalancingStrategy conf Kuma refuses: hash policy without its section, affinity tags partly weighted, failover zones against the type, bad percentages, confs a MeshHTTPRoute or MeshGateway target does not allow",
			Bad:     shapingHead("kind: MeshLoadBalancingStrategy") + shapingLBTo + "              - key: k8s.io/node\n                weight: 10\n              - key: k8s.io/az\n",
			Good:    shapingHead("kind: MeshLoadBalancingStrategy") + shapingLBTo + "              - key: k8s.io/node\n                weight: 10\n              - key: k8s.io/az\n                weight: 5\n"},
		{Code: CodePassthroughConf, Severity: SeverityError,
			Summary: "a MeshPassthrough match Kuma refuses: bad domain, IP or CIDR, partial wildcard, protocol a domain cannot use, port rules, duplicate value",
			Bad:     shapingHead("kind: MeshPassthrough") + shapingPTHead + "        value: \"*w.example.com\"\n        port: 443\n        protocol: tls\n",
			Good:    shapingHead("kind: MeshPassthrough") + shapingPTHead + "        value: \"*.example.com\"\n        port: 443\n        protocol: tls\n"},
		{Code: CodeProxyPatchConf, Severity: SeverityError,
			Summary: "a MeshProxyPatch modification Kuma refuses: not exactly one type, operation or match the type does not allow, missing or invalid Envoy value, value with jsonPatches",
			Bad:     shapingHead("kind: MeshProxyPatch") + shapingPPHead + "          operation: Remove\n          value: |\n            name: xyz\n",
			Good:    shapingHead("kind: MeshProxyPatch") + shapingPPHead + "          operation: Remove\n          match:\n            name: xyz\n"},
		{Code: CodeMeshTLSConf, Severity: SeverityError,
			Summary: "a MeshTLS conf Kuma refuses: tlsVersion or tlsCiphers on a policy not targeting the whole Mesh, or a minimum version above the maximum",
			Bad:     shapingHead("kind: MeshTLS") + shapingTLSTop + "          min: TLS13\n          max: TLS12\n",
			Good:    shapingHead("kind: MeshTLS") + shapingTLSTop + "          min: TLS12\n          max: TLS13\n"},
	}
}
