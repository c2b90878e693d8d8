package api

// LinkerdGroup is the API group of Linkerd's authorization policies.
const LinkerdGroup = "policy.linkerd.io"

// linkerd builds a policy.linkerd.io entry. Every Linkerd kind is Watched: the
// authorization preview reads all of them and the conflict check reads Servers.
func linkerd(version, kind, plural, summary string, spec func() any) *Kind {
	return &Kind{Group: LinkerdGroup, Version: version, Kind: kind, Plural: plural,
		Family: FamilyLinkerd, Summary: summary, NewSpec: spec, Watched: true}
}

// LinkerdKinds returns the registry entries of Linkerd's policy.linkerd.io family,
// one per served version: the webhook sees the version a client sent, and an old
// version both lacks fields and deserves a warning. The versions follow Linkerd's
// CRDs (charts/linkerd-crds): Server stores v1beta3 and still serves v1beta2 and the
// deprecated v1beta1 and v1alpha1; ServerAuthorization stores v1beta1 and serves the
// deprecated v1alpha1.
func LinkerdKinds() []*Kind {
	const srv = "a port on a set of pods or external workloads, and its protocol"
	const saz = "which clients may reach Servers (the older, per-Server authorization)"
	server := func() any { return &ServerSpec{} }
	serverV1Beta2 := func() any { return &ServerV1Beta2Spec{} }
	serverV1Beta1 := func() any { return &ServerV1Beta1Spec{} }
	saSpec := func() any { return &ServerAuthorizationSpec{} }
	out := []*Kind{
		linkerd("v1beta3", KindServer, "servers", srv, server),
		linkerd("v1beta2", KindServer, "servers", srv, serverV1Beta2),
		linkerd("v1beta1", KindServer, "servers", srv, serverV1Beta1),
		linkerd("v1alpha1", KindServer, "servers", srv, serverV1Beta1),
		linkerd("v1beta1", KindServerAuthorization, "serverauthorizations", saz, saSpec),
		linkerd("v1alpha1", KindServerAuthorization, "serverauthorizations", saz, saSpec),
		linkerd("v1alpha1", KindAuthorizationPolicy, "authorizationpolicies",
			"which authentications a Server, route or namespace requires",
			func() any { return &AuthorizationPolicySpec{} }),
		linkerd("v1alpha1", KindMeshTLSAuthentication, "meshtlsauthentications",
			"a set of mTLS client identities or service accounts",
			func() any { return &MeshTLSAuthenticationSpec{} }),
		linkerd("v1alpha1", KindNetworkAuthentication, "networkauthentications",
			"a set of client networks (CIDRs with exceptions)",
			func() any { return &NetworkAuthenticationSpec{} }),
	}
	out[2].Deprecated = LinkerdGroup + "/v1beta3 " + KindServer
	out[3].Deprecated = LinkerdGroup + "/v1beta3 " + KindServer
	out[5].Deprecated = LinkerdGroup + "/v1beta1 " + KindServerAuthorization
	return append(out, linkerdRouteKinds()...)
}

// linkerdRouteKinds are the kinds Linkerd's admission validates beyond authorization:
// EgressNetwork, HTTPLocalRateLimitPolicy, its own HTTPRoute (every served version,
// v1beta3 stored) and the Gateway API routes, every version some embedded Gateway API
// bundle serves (TLSRoute v1alpha3 and v1 came with v1.4 and v1.5). Only the
// HTTPRoute is Watched; the webhook keeps no cache of the others (the lint run reads
// them from its input).
func linkerdRouteKinds() []*Kind {
	const route = "HTTP routing and per-route policy for a Server, an EgressNetwork or a Service"
	lkRoute := func() any { return &LinkerdHTTPRouteSpec{} }
	// Linkerd's own HTTPRoute is Watched: an AuthorizationPolicy on one grants on the
	// route's parent Servers, which the webhook's preview finds through the cache.
	lkWatched := func(version string) *Kind {
		return linkerd(version, KindHTTPRoute, "httproutes", route, lkRoute)
	}
	gwHTTP := func() any { return &GatewayHTTPRouteSpec{} }
	gwGRPC := func() any { return &GatewayGRPCRouteSpec{} }
	gwTLS := func() any { return &GatewayTLSRouteSpec{} }
	out := []*Kind{
		linkerd("v1alpha1", KindEgressNetwork, "egressnetworks",
			"destinations outside the cluster that routes may take as parent", func() any { return &EgressNetworkSpec{} }),
		linkerd("v1alpha1", KindHTTPLocalRateLimitPolicy, "httplocalratelimitpolicies",
			"per-proxy HTTP rate limits on a Server (total, per identity, per client)",
			func() any { return &HTTPLocalRateLimitPolicySpec{} }),
		lkWatched("v1beta3"),
		lkWatched("v1beta2"),
		lkWatched("v1beta1"),
		lkWatched("v1alpha1"),
		watchedRoute(gatewayRoute("v1", KindHTTPRoute, "httproutes", gwHTTP)),
		gatewayRoute("v1beta1", KindHTTPRoute, "httproutes", gwHTTP),
		watchedRoute(gatewayRoute("v1", KindGRPCRoute, "grpcroutes", gwGRPC)),
		gatewayRoute("v1alpha2", KindGRPCRoute, "grpcroutes", gwGRPC),
		gatewayRoute("v1alpha2", KindTCPRoute, "tcproutes", func() any { return &GatewayTCPRouteSpec{} }),
		// TLSRoute's storage version is v1 in the newest bundle, v1alpha3 in
		// v1.4 and v1alpha2 before: the registry lists the newest first.
		gatewayRoute("v1", KindTLSRoute, "tlsroutes", gwTLS),
		gatewayRoute("v1alpha3", KindTLSRoute, "tlsroutes", gwTLS),
		gatewayRoute("v1alpha2", KindTLSRoute, "tlsroutes", gwTLS),
	}
	// Gateway API deprecates GRPCRoute v1alpha2 in the CRDs Linkerd bundles (v1.1.1;
	// later bundles do not serve it), and TLSRoute v1alpha2 and v1alpha3 from v1.5,
	// which serves TLSRoute v1. The warning is given only where the selected
	// bundle's CRD deprecates the version (--gateway-api-version).
	out[9].Deprecated = GatewayGroup + "/v1 " + KindGRPCRoute
	out[12].Deprecated = GatewayGroup + "/v1 " + KindTLSRoute
	out[13].Deprecated = GatewayGroup + "/v1 " + KindTLSRoute
	return out
}

// gatewayRoute is a Gateway API route entry of the Linkerd family: meshguard checks
// it only when a parentRef names a Linkerd Server, an EgressNetwork or a Service
// (see GuardedRoute); a route of another gateway is left alone.
func gatewayRoute(version, kind, plural string, spec func() any) *Kind {
	return &Kind{Group: GatewayGroup, Version: version, Kind: kind, Plural: plural, Family: FamilyLinkerd,
		Summary: "a Gateway API " + kind + " parented to a Linkerd Server, an EgressNetwork or a Service", NewSpec: spec}
}

// watchedRoute marks the storage version of a Gateway API route kind an
// AuthorizationPolicy may target: the webhook caches them, so that the admission
// preview of a policy on a stored route finds the route's parent Servers.
func watchedRoute(k *Kind) *Kind {
	k.Watched = true
	return k
}

// StorageVersion reports whether k is the version its kind's CRD stores: by
// convention the first registry entry of its group and kind (LinkerdKinds lists the
// storage version first). Generators that build one CRD per kind need exactly one.
func (r *Registry) StorageVersion(k *Kind) bool {
	for _, o := range r.kinds {
		if o.Group == k.Group && o.Kind == k.Kind {
			return o == k
		}
	}
	return false
}

// KnownLinkerdResources are policy.linkerd.io kinds meshguard does not guard but that
// are legitimate, so the linter does not call them unknown. Since issue 16 every kind
// of Linkerd's CRDs is a registry kind; the list stays for releases that add one.
func KnownLinkerdResources() []string { return nil }
