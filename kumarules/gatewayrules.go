package kumarules

import (
	"github.com/meshguard/meshguard/api"
)

// ListenerHostname is a builtin gateway listener with the hostname it serves,
// address:port:hostname ("*" when the MeshGateway listener names none), as Kuma's
// InboundListenerHostname prints it. Kuma keys the route kinds' gateway rules by it:
// two MeshGateway listeners on one port with different hostnames get different
// routes.
type ListenerHostname string

// GatewayRules is Kuma's GatewayRules for a builtin gateway proxy: what the
// policies that select each MeshGateway listener give it. Which map a kind's
// gateway configuration reads is the kind's (RulesByHostname): Kuma's
// MeshHTTPRoute, MeshTCPRoute and MeshHealthCheck plugins read ByListenerAndHostname,
// the others ByListener.
type GatewayRules struct {
	// ByListener are the to rules of the policies that select each listener
	// (address:port), in merge order.
	ByListener map[Listener]ToRules
	// ByListenerAndHostname are the to rules of the policies that select each
	// listener and hostname. Kuma does not sort these policies: they merge in the
	// order its store lists them, here the order of the objects.
	ByListenerAndHostname map[ListenerHostname]ToRules
}

// RulesByHostname reports whether Kuma configures a builtin gateway from the
// ByListenerAndHostname rules of policyType (its route kinds and MeshHealthCheck)
// rather than from ByListener.
func RulesByHostname(policyType string) bool {
	return policyType == refMeshHTTPRoute || policyType == api.KindMeshTCPRoute || policyType == api.KindMeshHealthCheck
}

// newGatewayRules is an empty GatewayRules, what a builtin gateway no policy of a
// kind selects gets.
func newGatewayRules() *GatewayRules {
	return &GatewayRules{ByListener: map[Listener]ToRules{}, ByListenerAndHostname: map[ListenerHostname]ToRules{}}
}

// gatewayRules computes Kuma's BuildGatewayRules for the policies (by index) that
// select each listener (sorted) and each listener and hostname (in object order).
func (x *Index) gatewayRules(policyType string, byInbound map[Listener][]int, byHost map[ListenerHostname][]int, opts MatchOptions) (*GatewayRules, []string) {
	g := newGatewayRules()
	var warns []string
	build := func(ids []int) (ToRules, bool) {
		key := x.setKey('G', policyType, ids, opts.SkipLegacyTo)
		tr, ok := x.toMemo[key]
		if !ok {
			var err error
			if tr.to, err = x.eng.buildToRules(x.policiesOf(ids), x.routes, x.res, !opts.SkipLegacyTo); err != nil {
				tr.warns = []string{"couldn't create Gateway rules: " + err.Error()}
			}
			x.toMemo[key] = tr
		}
		warns = append(warns, tr.warns...)
		return tr.to, len(tr.warns) == 0
	}
	for h, ids := range byHost {
		if tr, ok := build(ids); ok {
			g.ByListenerAndHostname[h] = tr
		}
	}
	for l, ids := range byInbound {
		if tr, ok := build(ids); ok {
			g.ByListener[l] = tr
		}
	}
	if len(warns) > 0 { // Kuma gives up on the whole GatewayRules at the first error
		return newGatewayRules(), warns[:1]
	}
	return g, nil
}

// ServingGateway is the MeshGateway among objects that serves the builtin gateway
// Dataplane dp, as Kuma's SelectGateway picks it (see selectGateway); false for
// other Dataplanes or when none does. Inspect reads its listeners to show the
// proxy listener by listener.
func ServingGateway(dp Dataplane, objects []Policy) (Policy, bool) {
	gw := selectGateway(dp, objects)
	if gw == nil {
		return Policy{}, false
	}
	for _, o := range objects {
		if o.Type == refMeshGateway && o.Mesh == gw.meta.Mesh && o.Name == gw.meta.Name {
			return o, true
		}
	}
	return Policy{}, false
}
