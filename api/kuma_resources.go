package api

// Kuma's non-policy resources. They have no targetRef, role or syntactic sugar: the
// schema layer checks them against Kuma's CRDs, the kind's own rules (one file per kind
// in validate/, reached through NewSpec's typed spec) check what Kuma's validator for
// the resource checks, and the mutating stage computes the labels Kuma's own
// defaulting webhook computes (mesh for mesh-scoped kinds, namespace, zone origin).

// kumaResource is a registry entry of a Kuma resource; its spec decodes as a free
// value until the kind has a typed spec and rules.
func kumaResource(kind, plural string, meshScoped, zoneProvided bool, summary string) *Kind {
	return &Kind{Group: KumaGroup, Version: "v1alpha1", Kind: kind, Plural: plural, Family: FamilyKuma,
		Resource: true, MeshScoped: meshScoped, ZoneProvided: zoneProvided, Summary: summary,
		NewSpec: func() any { return new(Free) }}
}

// clusterScoped marks a kind whose objects have no namespace.
func clusterScoped(k *Kind) *Kind {
	k.ClusterScoped = true
	return k
}

// KumaResourceKinds returns the registry entries of the Kuma resources users write,
// with each kind's scope and origin as Kuma 2.14's resource descriptors give them.
func KumaResourceKinds() []*Kind {
	return []*Kind{
		clusterScoped(kumaResource("Mesh", "meshes", false, false, "a mesh: mTLS backends, networking, routing defaults")),
		kumaResource("MeshService", "meshservices", true, true, "a service of one zone: selector, ports, identities"),
		kumaResource("MeshExternalService", "meshexternalservices", true, true, "a destination outside the mesh: match, endpoints, TLS"),
		kumaResource("MeshMultiZoneService", "meshmultizoneservices", true, false, "a service spanning zones: which MeshServices it groups"),
		clusterScoped(kumaResource("MeshGateway", "meshgateways", true, false, "a builtin gateway: listeners and selectors")),
		clusterScoped(kumaResource("MeshGatewayRoute", "meshgatewayroutes", true, false, "a route of a builtin gateway (deprecated: use MeshHTTPRoute or MeshTCPRoute)")),
		kumaResource("MeshGatewayInstance", "meshgatewayinstances", false, false, "the Kubernetes deployment of a builtin gateway"),
		clusterScoped(kumaResource("MeshGatewayConfig", "meshgatewayconfigs", false, false, "defaults for builtin gateway deployments")),
		kumaResource("MeshIdentity", "meshidentities", true, true, "how workloads of a mesh get their identity"),
		kumaResource("MeshTrust", "meshtrusts", true, true, "trust domains and their CA bundles"),
		kumaResource("HostnameGenerator", "hostnamegenerators", false, true, "templates for the hostnames of services"),
		kumaResource("MeshOpenTelemetryBackend", "meshopentelemetrybackends", true, true, "an OpenTelemetry collector policies can refer to"),
		kumaResource("MeshZoneAddress", "meshzoneaddresses", true, true, "the address other zones reach this zone at"),
		kumaResource("Workload", "workloads", true, true, "a workload identity for proxies"),
		kumaResource("Dataplane", "dataplanes", true, true, "a data plane proxy (Kuma writes these on Kubernetes)"),
	}
}
