package api

// KumaGroup is the API group of Kuma's policies.
const KumaGroup = "kuma.io"

// Shorthands for the kind lists below; they keep the table readable.
const (
	mesh   = RefMesh
	subset = RefMeshSubset
	svc    = RefMeshService
	svcSub = RefMeshServiceSubset
	gw     = RefMeshGateway
	route  = RefMeshHTTPRoute
	mes    = RefMeshExternalService
	mzs    = RefMeshMultiZoneService
	dp     = RefDataplane
)

func refs(r ...RefKind) []RefKind { return r }

func kuma(kind, plural string, sec Section, summary string) *Kind {
	return &Kind{Group: KumaGroup, Version: "v1alpha1", Kind: kind, Plural: plural, Family: FamilyKuma,
		Sections: sec, Summary: summary, NewSpec: func() any { return &PolicySpec{} }}
}

// KumaKinds returns the registry entries of Kuma's targetRef policy family. The kind
// lists and the Shared options follow Kuma 2.14.3's validators of each policy
// (pkg/plugins/policies/<policy>/api/v1alpha1/validator.go).
func KumaKinds() []*Kind {
	out := []*Kind{}
	add := func(k *Kind) *Kind { out = append(out, k); return k }
	kumaRouteKinds(add)
	kumaTrafficKinds(add)
	kumaProxyKinds(add)
	for _, k := range out {
		k.Shared = kumaShared(k.Kind)
		// The webhook caches every policy kind: what a change does to each
		// proxy's configuration (config-diff) merges the stored policies.
		k.Watched = true
	}
	return out
}

// kumaRouteKinds adds MeshTrafficPermission, MeshTimeout and the two routes, in
// registry order.
func kumaRouteKinds(add func(*Kind) *Kind) {
	tr := SecTargetRef
	mtp := add(kuma(KindMeshTrafficPermission, "meshtrafficpermissions", tr|SecFrom|SecRules,
		"who may connect to a proxy's inbounds"))
	mtp.TopLevel = refs(mesh, subset, svc, svcSub, dp, RefMeshGatewayRoute) // MeshGatewayRoute: the cross-mesh seed; the CRD refuses it
	mtp.From = refs(mesh, subset, svc, svcSub)
	mtp.NewSpec = func() any { return &MeshTrafficPermissionSpec{} }
	mtp.Watched = true

	mt := add(kuma(KindMeshTimeout, "meshtimeouts", tr|SecTo|SecFrom|SecRules, "connection and request timeouts"))
	mt.TopLevel = refs(mesh, subset, svc, svcSub, dp, gw, route)
	mt.SystemOnly = refs(gw, route)
	mt.To = refs(mesh, svc, mzs, mes, route)
	mt.ToGateway = refs(mesh, mes)
	mt.From = refs(mesh)
	mt.NewSpec = func() any { return &MeshTimeoutSpec{} }

	hr := add(kuma("MeshHTTPRoute", "meshhttproutes", tr|SecTo, "HTTP routing: matches, filters and backends"))
	hr.TopLevel = refs(mesh, subset, svc, svcSub, dp, gw)
	hr.SystemOnly = refs(gw)
	hr.To = refs(svc, mzs, mes)
	hr.ToGateway = refs(mesh)
	hr.BackendRefs = refs(svc, svcSub, mzs, mes)
	hr.MirrorRefs = refs(svc, svcSub)
	hr.Route = true
	hr.NewSpec = func() any { return &MeshHTTPRouteSpec{} }

	tcp := add(kuma("MeshTCPRoute", "meshtcproutes", tr|SecTo, "TCP routing: backends"))
	tcp.TopLevel = refs(mesh, subset, svc, svcSub, dp, gw)
	tcp.SystemOnly = refs(gw)
	tcp.To = refs(svc, mzs, mes)
	tcp.ToGateway = refs(mesh)
	tcp.BackendRefs = refs(svc, svcSub, mzs, mes)
	tcp.Route = true
	tcp.NewSpec = func() any { return &MeshTCPRouteSpec{} }
}

// kumaTrafficKinds adds the outbound and inbound traffic policies, in registry order.
func kumaTrafficKinds(add func(*Kind) *Kind) {
	tr := SecTargetRef
	retry := add(kuma("MeshRetry", "meshretries", tr|SecTo, "retries of outbound requests"))
	retry.TopLevel = refs(mesh, subset, svc, svcSub, dp, gw, route)
	retry.SystemOnly = refs(gw, route)
	retry.To = refs(mesh, svc, mzs, mes, route)
	retry.ToGateway = refs(mesh, mes)
	retry.NewSpec = func() any { return &MeshRetrySpec{} }

	cb := add(kuma("MeshCircuitBreaker", "meshcircuitbreakers", tr|SecTo|SecFrom|SecRules, "connection limits and outlier detection"))
	cb.TopLevel = refs(mesh, subset, svc, svcSub, dp, gw)
	cb.To = refs(mesh, svc, mzs, mes)
	cb.From = refs(mesh)
	cb.NewSpec = func() any { return &MeshCircuitBreakerSpec{} }

	rl := add(kuma("MeshRateLimit", "meshratelimits", tr|SecTo|SecFrom|SecRules, "local rate limits"))
	rl.TopLevel = refs(mesh, subset, svc, svcSub, dp, gw, route)
	rl.SystemOnly = refs(gw, route)
	rl.To = refs(mesh)
	rl.From = refs(mesh)
	rl.NewSpec = func() any { return &MeshRateLimitSpec{} }

	fi := add(kuma("MeshFaultInjection", "meshfaultinjections", tr|SecTo|SecFrom|SecRules, "injected delays and aborts"))
	fi.TopLevel = refs(mesh, subset, svc, svcSub, dp, gw)
	fi.SystemOnly = refs(gw)
	fi.To = refs(mesh)
	fi.From = refs(mesh, subset, svc, svcSub)
	fi.NewSpec = func() any { return &MeshFaultInjectionSpec{} }

	al := add(kuma("MeshAccessLog", "meshaccesslogs", tr|SecTo|SecFrom|SecRules, "access log backends"))
	al.TopLevel = refs(mesh, subset, svc, svcSub, dp, gw)
	al.To = refs(mesh, svc, mzs, mes, route)
	al.ToGateway = refs(mesh)
	al.From = refs(mesh)
	al.NewSpec = func() any { return &MeshAccessLogSpec{} }

	hc := add(kuma("MeshHealthCheck", "meshhealthchecks", tr|SecTo, "active health checks"))
	hc.TopLevel = refs(mesh, subset, svc, svcSub, dp, gw)
	hc.To = refs(mesh, svc, mzs, mes)
	hc.NewSpec = func() any { return &MeshHealthCheckSpec{} }

	lbs := add(kuma("MeshLoadBalancingStrategy", "meshloadbalancingstrategies", tr|SecTo, "load balancing and locality awareness"))
	lbs.TopLevel = refs(mesh, subset, svc, svcSub, dp, gw)
	lbs.To = refs(mesh, svc, mzs, route)
	lbs.ToGateway = refs(mesh, svc, mzs)
	lbs.NewSpec = func() any { return &MeshLoadBalancingStrategySpec{} }
}

// kumaProxyKinds adds the policies that configure a proxy as a whole (single
// `default`) and MeshTLS, in registry order.
func kumaProxyKinds(add func(*Kind) *Kind) {
	tr := SecTargetRef
	trace := add(kuma("MeshTrace", "meshtraces", tr|SecDefault, "tracing backends and sampling"))
	trace.TopLevel = refs(mesh, subset, svc, svcSub, dp, gw)
	trace.SystemOnly = refs(gw)
	trace.NewSpec = func() any { return &MeshTraceSpec{} }

	pp := add(kuma("MeshProxyPatch", "meshproxypatches", tr|SecDefault, "raw Envoy configuration patches"))
	pp.TopLevel = refs(mesh, subset, svc, svcSub, dp, gw)
	pp.SystemOnly = refs(gw)
	pp.NewSpec = func() any { return &MeshProxyPatchSpec{} }

	metric := add(kuma("MeshMetric", "meshmetrics", tr|SecDefault, "metrics scraping and backends"))
	metric.TopLevel = refs(mesh, subset, svc, svcSub, dp, gw)
	metric.SystemOnly = refs(gw)
	metric.NewSpec = func() any { return &MeshMetricSpec{} }

	pt := add(kuma("MeshPassthrough", "meshpassthroughs", tr|SecDefault, "passthrough to destinations outside the mesh"))
	pt.TopLevel = refs(mesh, subset, dp)
	pt.NewSpec = func() any { return &MeshPassthroughSpec{} }

	tls := add(kuma("MeshTLS", "meshtlses", tr|SecFrom|SecRules, "TLS version, ciphers and mode of inbounds"))
	tls.TopLevel = refs(mesh, subset, dp)
	tls.From = refs(mesh)
	tls.NewSpec = func() any { return &MeshTLSSpec{} }
}

// KnownKumaResources are kuma.io kinds that are not policies meshguard guards but are
// legitimate; the linter does not call them unknown.
func KnownKumaResources() []string {
	return []string{"Mesh", "MeshService", "MeshExternalService", "MeshMultiZoneService",
		"MeshGateway", "MeshGatewayInstance", "MeshGatewayConfig", "MeshIdentity", "MeshTrust",
		"Dataplane", "DataplaneInsight", "ZoneIngress", "ZoneEgress", "ZoneIngressInsight",
		"ZoneEgressInsight", "ZoneInsight", "Zone", "MeshInsight", "ServiceInsight",
		"HostnameGenerator", "MeshOPA", "MeshGlobalRateLimit", "ContainerPatch",
		"TrafficPermission", "TrafficRoute", "TrafficLog", "TrafficTrace", "HealthCheck",
		"CircuitBreaker", "FaultInjection", "Retry", "Timeout", "RateLimit", "ProxyTemplate",
		"VirtualOutbound", "ExternalService", "MeshGatewayRoute", "MeshServiceInsight", "Workload",
		"MeshOpenTelemetryBackend", "MeshZoneAddress"}
}

// DefaultRegistry is the registry the product uses: every guarded kind. The first
// entry of a kind is its storage version (see Registry.StorageVersion).
func DefaultRegistry() *Registry {
	return NewRegistry(append(append(KumaKinds(), KumaResourceKinds()...), LinkerdKinds()...)...)
}

// LegacyKumaPolicy is a Kuma policy of the old model (before targetRef), which
// Kuma 2.14 still serves: its API collection, and whether it selects Dataplanes
// by `sources` and `destinations` (a connection policy) or by `selectors`.
type LegacyKumaPolicy struct {
	Kind, Plural string
	Connection   bool
}

// LegacyKumaPolicies are the old-model policies of Kuma 2.14
// (pkg/core/resources/apis/mesh), for the inspect API's
// …/_resources/dataplanes, which Kuma answers for them too.
func LegacyKumaPolicies() []LegacyKumaPolicy {
	return []LegacyKumaPolicy{
		{"CircuitBreaker", "circuit-breakers", true}, {"FaultInjection", "fault-injections", true},
		{"HealthCheck", "health-checks", true}, {"RateLimit", "rate-limits", true}, {"Retry", "retries", true},
		{"Timeout", "timeouts", true}, {"TrafficLog", "traffic-logs", true},
		{"TrafficPermission", "traffic-permissions", true}, {"TrafficRoute", "traffic-routes", true},
		{"TrafficTrace", "traffic-traces", false}, {"VirtualOutbound", "virtual-outbounds", false},
		{"ProxyTemplate", "proxytemplates", false}, {"MeshGatewayRoute", "meshgatewayroutes", false},
	}
}
