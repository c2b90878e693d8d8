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
		group, hasGroup := m["group"].(string)
		kind, _ := m["kind"].(string)
		if LinkerdParent(group, hasGroup, kind) {
			return true
		}
	}
	return false
}

// LinkerdParent reports whether a parentRef's group and kind name a Linkerd Server, an
// EgressNetwork (group policy.linkerd.io) or a core Service (no group, "" or "core"),
// compared case-insensitively as Linkerd does. A parentRef without a kind is a
// Gateway (the Gateway API default).
func LinkerdParent(group string, hasGroup bool, kind string) bool {
	switch {
	case strings.EqualFold(kind, KindService):
		return !hasGroup || group == "" || strings.EqualFold(group, "core")
	case strings.EqualFold(kind, KindServer), strings.EqualFold(kind, KindEgressNetwork):
		return hasGroup && strings.EqualFold(group, LinkerdGroup)
	}
	return false
}

// IsEgressNetworkParent reports whether a parentRef names an EgressNetwork: Linkerd
// wants the group spelt out.
func IsEgressNetworkParent(r ParentRef) bool {
	return r.Group != nil && strings.EqualFold(*r.Group, LinkerdGroup) && r.Kind != nil && strings.EqualFold(*r.Kind, KindEgressNetwork)
}

// IsServiceParent reports whether a parentRef names a core Service.
func IsServiceParent(r ParentRef) bool {
	g := ""
	if r.Group != nil {
		g = *r.Group
	}
	return r.Kind != nil && LinkerdParent(g, r.Group != nil, *r.Kind) && strings.EqualFold(*r.Kind, KindService)
}
