package api

// Names of Kuma kinds that code outside api spells: the policy kinds the registry
// builds from other constants, and the resources Kuma's API server lists beside
// them (its inspect answers name them). The registry stays the only list of kinds
// meshguard guards; these are their spellings.
const (
	KindMeshGateway               = string(RefMeshGateway)
	KindMeshService               = string(RefMeshService)
	KindMeshExternalService       = string(RefMeshExternalService)
	KindMeshMultiZoneService      = string(RefMeshMultiZoneService)
	KindMeshHTTPRoute             = string(RefMeshHTTPRoute)
	KindMeshSubset                = string(RefMeshSubset)
	KindMeshServiceSubset         = string(RefMeshServiceSubset)
	KindMeshTLS                   = "MeshTLS"
	KindMeshLoadBalancingStrategy = "MeshLoadBalancingStrategy"
	KindMeshPassthrough           = "MeshPassthrough"
	KindMeshFaultInjection        = "MeshFaultInjection"
	KindMeshRateLimit             = "MeshRateLimit"
	KindMeshHealthCheck           = "MeshHealthCheck"
	KindMeshCircuitBreaker        = "MeshCircuitBreaker"
	KindMeshRetry                 = "MeshRetry"
	KindMeshProxyPatch            = "MeshProxyPatch"
	KindMeshZoneAddress           = "MeshZoneAddress"
	KindDataplaneInsight          = "DataplaneInsight"
	KindZoneIngress               = "ZoneIngress"
	KindZoneEgress                = "ZoneEgress"
	KindZone                      = "Zone"
)
