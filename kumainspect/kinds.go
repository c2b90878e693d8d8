package kumainspect

// kumaType is what Kuma's API server knows about one resource type: the short
// name its KRIs use and, for policies, the order in which the API lists them (the
// policy plugins' registration order, PolicyPlugins()).
type kumaType struct {
	kind      string
	shortName string
	// order is the plugin order of a policy kind; 0 for other resources.
	order int
	// durations are the JSON keys of the kind's conf that Kuma decodes as
	// durations and writes back in Go's spelling (1h0m0s).
	durations []string
}

// kumaTypes are Kuma 2.14.3's resource type descriptors (ShortName, Order) for the
// types the inspect API names, and the duration fields of the policies' typed
// confs (k8s.Duration fields of pkg/plugins/policies/*/api/v1alpha1).
func kumaTypes() []kumaType {
	return []kumaType{
		{kind: "Mesh", shortName: "m"},
		{kind: "Dataplane", shortName: "dp"},
		{kind: "MeshGateway", shortName: "mgw"},
		{kind: "MeshService", shortName: "msvc"},
		{kind: "MeshExternalService", shortName: "extsvc"},
		{kind: "MeshMultiZoneService", shortName: "mzsvc"},
		{kind: "MeshIdentity", shortName: "mid"},
		{kind: "MeshTrust", shortName: "mtrust"},
		{kind: "HostnameGenerator", shortName: "hg"},
		{kind: "MeshOpenTelemetryBackend", shortName: "motb"},
		{kind: "MeshZoneAddress", shortName: "mza"},
		{kind: "Workload", shortName: "wl"},
		{kind: "MeshHTTPRoute", shortName: "mhttpr", order: 100},
		{kind: "MeshTCPRoute", shortName: "mtcpr", order: 200},
		{kind: "MeshTLS", shortName: "mtls", order: 300},
		{kind: "MeshLoadBalancingStrategy", shortName: "mlbs", order: 400, durations: []string{"ttl"}},
		{kind: "MeshPassthrough", shortName: "mp", order: 500},
		{kind: "MeshAccessLog", shortName: "mal", order: 600},
		{kind: "MeshTrace", shortName: "mtr", order: 700},
		{kind: "MeshFaultInjection", shortName: "mfi", order: 800, durations: []string{"value"}},
		{kind: "MeshRateLimit", shortName: "mrl", order: 900, durations: []string{"interval"}},
		{kind: "MeshTimeout", shortName: "mt", order: 1000, durations: []string{
			"connectionTimeout", "idleTimeout", "requestTimeout", "streamIdleTimeout",
			"maxStreamDuration", "maxConnectionDuration", "requestHeadersTimeout"}},
		{kind: "MeshTrafficPermission", shortName: "mtp", order: 1100},
		{kind: "MeshHealthCheck", shortName: "mhc", order: 1200, durations: []string{
			"interval", "timeout", "initialJitter", "intervalJitter", "noTrafficInterval"}},
		{kind: "MeshCircuitBreaker", shortName: "mcb", order: 1300, durations: []string{"interval", "baseEjectionTime"}},
		{kind: "MeshRetry", shortName: "mr", order: 1400, durations: []string{"perTryTimeout", "baseInterval", "maxInterval"}},
		{kind: "MeshMetric", shortName: "mm", order: 1500, durations: []string{"refreshInterval"}},
		{kind: "MeshProxyPatch", shortName: "mpp", order: 9999},
	}
}

// typeTable indexes kumaTypes by kind and by short name.
type typeTable struct {
	byKind  map[string]kumaType
	byShort map[string]kumaType
	// policies are the policy kinds in the API's order.
	policies []string
}

func newTypeTable() typeTable {
	t := typeTable{byKind: map[string]kumaType{}, byShort: map[string]kumaType{}}
	for _, k := range kumaTypes() { // listed in order: policies come sorted
		t.byKind[k.kind] = k
		t.byShort[k.shortName] = k
		if k.order > 0 {
			t.policies = append(t.policies, k.kind)
		}
	}
	return t
}
