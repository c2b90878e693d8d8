package kumainspect

import "github.com/meshguard/meshguard/api"

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
		{kind: api.KindMesh, shortName: "m"},
		{kind: api.KindDataplane, shortName: "dp"},
		{kind: api.KindMeshGateway, shortName: "mgw"},
		{kind: api.KindMeshService, shortName: "msvc"},
		{kind: api.KindMeshExternalService, shortName: "extsvc"},
		{kind: api.KindMeshMultiZoneService, shortName: "mzsvc"},
		{kind: api.KindMeshIdentity, shortName: "mid"},
		{kind: api.KindMeshTrust, shortName: "mtrust"},
		{kind: api.KindHostnameGenerator, shortName: "hg"},
		{kind: api.KindMeshOpenTelemetryBackend, shortName: "motb"},
		{kind: api.KindMeshZoneAddress, shortName: "mza"},
		{kind: api.KindWorkload, shortName: "wl"},
		{kind: api.KindMeshHTTPRoute, shortName: "mhttpr", order: 100},
		{kind: api.KindMeshTCPRoute, shortName: "mtcpr", order: 200},
		{kind: api.KindMeshTLS, shortName: "mtls", order: 300},
		{kind: api.KindMeshLoadBalancingStrategy, shortName: "mlbs", order: 400, durations: []string{"ttl"}},
		{kind: api.KindMeshPassthrough, shortName: "mp", order: 500},
		{kind: api.KindMeshAccessLog, shortName: "mal", order: 600},
		{kind: api.KindMeshTrace, shortName: "mtr", order: 700},
		{kind: api.KindMeshFaultInjection, shortName: "mfi", order: 800, durations: []string{"value"}},
		{kind: api.KindMeshRateLimit, shortName: "mrl", order: 900, durations: []string{"interval"}},
		{kind: api.KindMeshTimeout, shortName: "mt", order: 1000, durations: []string{
			"connectionTimeout", "idleTimeout", "requestTimeout", "streamIdleTimeout",
			"maxStreamDuration", "maxConnectionDuration", "requestHeadersTimeout"}},
		{kind: api.KindMeshTrafficPermission, shortName: "mtp", order: 1100},
		{kind: api.KindMeshHealthCheck, shortName: "mhc", order: 1200, durations: []string{
			"interval", "timeout", "initialJitter", "intervalJitter", "noTrafficInterval"}},
		{kind: api.KindMeshCircuitBreaker, shortName: "mcb", order: 1300, durations: []string{"interval", "baseEjectionTime"}},
		{kind: api.KindMeshRetry, shortName: "mr", order: 1400, durations: []string{"perTryTimeout", "baseInterval", "maxInterval"}},
		{kind: api.KindMeshMetric, shortName: "mm", order: 1500, durations: []string{"refreshInterval"}},
		{kind: api.KindMeshProxyPatch, shortName: "mpp", order: 9999},
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
