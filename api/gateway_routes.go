package api

import "strings"

// Gateway API route kinds Linkerd serves (its bundled gateway.networking.k8s.io CRDs)
// and validates at admission when they are parented to a Linkerd Server, an
// EgressNetwork or a Service.
const (
	KindTCPRoute = "TCPRoute"
	KindTLSRoute = "TLSRoute"
	// KindService is the core Service a route may take as parent or backend.
	KindService = "Service"
	// KindReferenceGrant is the Gateway API object a namespace writes to let
	// routes of another namespace name its Services: Kuma 3.0 requires one for a
	// cross-namespace HTTPRoute backend (kumahq/kuma #18075).
	KindReferenceGrant = "ReferenceGrant"
)

// GuardedRoute reports whether meshguard checks obj, an object of kind k: every
// policy.linkerd.io object, and a Gateway API route only when one of its parentRefs
// names a Linkerd Server, an EgressNetwork or a Service (Linkerd's mesh routes). A
// route parented only to gateways belongs to that gateway's controller and is left
// alone, as is every object of a family other than Linkerd's.
func GuardedRoute(k *Kind, obj map[string]any) bool {
	if k == nil || k.Group != GatewayGroup {
		return true
	}
	spec, _ := obj["spec"].(map[string]any)
	refs, _ := spec["parentRefs"].([]any)
	for _, r := range refs {
		m, _ := r.(map[string]any)
		var ref ParentRef
		if g, ok := m["group"].(string); ok {
			ref.Group = &g
		}
		if kind, ok := m["kind"].(string); ok {
			ref.Kind = &kind
		}
		if IsServiceParent(ref, k.Group) || IsEgressNetworkParent(ref, k.Group) || IsServerParent(ref, k.Group) {
			return true
		}
	}
	return false
}

// ParentGroup is the API group a parentRef names once the API server has defaulted
// it: an absent group is the route's own group (gateway.networking.k8s.io for a
// Gateway API route, policy.linkerd.io for Linkerd's HTTPRoute), as their CRDs say.
func ParentGroup(r ParentRef, routeGroup string) string {
	if r.Group != nil {
		return *r.Group
	}
	return routeGroup
}

// parentKind is a parentRef's kind once defaulted (Gateway).
func parentKind(r ParentRef) string {
	if r.Kind != nil {
		return *r.Kind
	}
	return "Gateway"
}

// IsEgressNetworkParent reports whether a parentRef of a route of routeGroup names an
// EgressNetwork, compared case-insensitively as Linkerd does.
func IsEgressNetworkParent(r ParentRef, routeGroup string) bool {
	return strings.EqualFold(ParentGroup(r, routeGroup), LinkerdGroup) && strings.EqualFold(parentKind(r), KindEgressNetwork)
}

// IsServerParent reports whether a parentRef of a route of routeGroup names a Linkerd
// Server.
func IsServerParent(r ParentRef, routeGroup string) bool {
	return strings.EqualFold(ParentGroup(r, routeGroup), LinkerdGroup) && strings.EqualFold(parentKind(r), KindServer)
}

// IsServiceParent reports whether a parentRef of a route of routeGroup names a core
// Service: group "" or "core". Linkerd's docs write `group: core` because an absent
// group is defaulted to the route's own group, which is not a Service's.
func IsServiceParent(r ParentRef, routeGroup string) bool {
	g := ParentGroup(r, routeGroup)
	return (g == "" || strings.EqualFold(g, "core")) && strings.EqualFold(parentKind(r), KindService)
}

// IsKumaServiceParent reports whether a parentRef of a Gateway API route names a
// parent Kuma's HTTPRoute controller converts routes for (GAMMA): a Service,
// group "" or gateway.networking.k8s.io as Kuma's isServiceParentRef takes it
// (not "core", which Kuma does not read), or a kuma.io MeshService.
func IsKumaServiceParent(r ParentRef, routeGroup string) bool {
	g, k := ParentGroup(r, routeGroup), parentKind(r)
	return (k == KindService && (g == "" || g == GatewayGroup)) || (k == KindMeshService && g == KumaGroup)
}
