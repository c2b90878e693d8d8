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

// typedResource gives a resource kind its typed spec (api/kuma_<kind>.go), which the
// kind's rules in validate/ read.
func typedResource(k *Kind, newSpec func() any) *Kind {
	k.NewSpec = newSpec
	return k
}

// readOnlyOn marks a kind Kuma's admission refuses from users on the control plane of
// mode m, because the other side provides it (Kuma's KDS flags: a MeshService is the
// zone's, so the global control plane only receives it; a Mesh is global's).
func readOnlyOn(m Mode, k *Kind) *Kind {
	k.ReadOnlyOn = m
	return k
}

// systemNamespaceOnly marks a kind Kuma accepts only in the system namespace
// (AllowedOnSystemNamespaceOnly in its descriptor).
func systemNamespaceOnly(k *Kind) *Kind {
	k.SystemNamespaceOnly = true
	return k
}

// watched marks a kind whose stored objects the webhook caches: a MeshIdentity
// decides whether a proxy's `from` MeshTrafficPermissions are programmed at all,
// so the preview and the widening check read them; Dataplanes are the proxies
// whose configuration a policy change alters (config-diff).
func watched(k *Kind) *Kind {
	k.Watched = true
	return k
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
		readOnlyOn(ModeZone, typedResource(clusterScoped(kumaResource(KindMesh, "meshes", false, false, "a mesh: mTLS backends, networking, routing defaults")), func() any { return &MeshSpec{} })),
		readOnlyOn(ModeGlobal, typedResource(kumaResource("MeshService", "meshservices", true, true, "a service of one zone: selector, ports, identities"), func() any { return &MeshServiceSpec{} })),
		systemNamespaceOnly(typedResource(kumaResource("MeshExternalService", "meshexternalservices", true, true, "a destination outside the mesh: match, endpoints, TLS"), func() any { return &MeshExternalServiceSpec{} })),
		readOnlyOn(ModeZone, typedResource(kumaResource("MeshMultiZoneService", "meshmultizoneservices", true, false, "a service spanning zones: which MeshServices it groups"), func() any { return &MeshMultiZoneServiceSpec{} })),
		typedResource(clusterScoped(kumaResource("MeshGateway", "meshgateways", true, true, "a builtin gateway: listeners and selectors")), func() any { return &MeshGatewaySpec{} }),
		readOnlyOn(ModeZone, typedResource(clusterScoped(kumaResource("MeshGatewayRoute", "meshgatewayroutes", true, false, "a route of a builtin gateway (deprecated: use MeshHTTPRoute or MeshTCPRoute)")), func() any { return &MeshGatewayRouteSpec{} })),
		typedResource(kumaResource("MeshGatewayInstance", "meshgatewayinstances", false, false, "the Kubernetes deployment of a builtin gateway"), func() any { return &MeshGatewayInstanceSpec{} }),
		typedResource(clusterScoped(kumaResource("MeshGatewayConfig", "meshgatewayconfigs", false, false, "defaults for builtin gateway deployments")), func() any { return &MeshGatewayConfigSpec{} }),
		watched(systemNamespaceOnly(typedResource(kumaResource("MeshIdentity", "meshidentities", true, true, "how workloads of a mesh get their identity"), func() any { return &MeshIdentitySpec{} }))),
		systemNamespaceOnly(typedResource(kumaResource("MeshTrust", "meshtrusts", true, true, "trust domains and their CA bundles"), func() any { return &MeshTrustSpec{} })),
		systemNamespaceOnly(typedResource(kumaResource("HostnameGenerator", "hostnamegenerators", false, true, "templates for the hostnames of services"), func() any { return &HostnameGeneratorSpec{} })),
		systemNamespaceOnly(typedResource(kumaResource("MeshOpenTelemetryBackend", "meshopentelemetrybackends", true, true, "an OpenTelemetry collector policies can refer to"), func() any { return &MeshOpenTelemetryBackendSpec{} })),
		readOnlyOn(ModeGlobal, typedResource(kumaResource("MeshZoneAddress", "meshzoneaddresses", true, true, "the address other zones reach this zone at"), func() any { return &MeshZoneAddressSpec{} })),
		readOnlyOn(ModeGlobal, typedResource(kumaResource("Workload", "workloads", true, true, "a workload identity for proxies"), func() any { return &WorkloadSpec{} })),
		watched(readOnlyOn(ModeGlobal, typedResource(kumaResource("Dataplane", "dataplanes", true, true, "a data plane proxy (Kuma writes these on Kubernetes)"), func() any { return &DataplaneSpec{} }))),
	}
}
