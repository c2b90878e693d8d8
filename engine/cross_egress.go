package engine

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/validate"
)

// egressNetworkGK is the kind MG369 looks for.
var egressNetworkGK = schema.GroupKind{Group: api.LinkerdGroup, Kind: api.KindEgressNetwork}

// missingEgressNetwork is MG369: a route parented to an EgressNetwork that does not
// exist. Linkerd leaves such a route unattached, so its rules do nothing. It judges
// only where the source can say (a lint run holding EgressNetworks of the parent's
// namespace, or complete; a synced cache), and its findings are errors only where
// the source is complete: otherwise the EgressNetwork may simply be applied later.
func missingEgressNetwork() CrossCheck {
	return CrossCheck{
		Codes: []string{validate.CodeLinkerdMissingEgressNet},
		Subjects: []schema.GroupKind{
			{Group: api.LinkerdGroup, Kind: api.KindHTTPRoute},
			{Group: api.GatewayGroup, Kind: api.KindHTTPRoute},
			{Group: api.GatewayGroup, Kind: api.KindGRPCRoute},
			{Group: api.GatewayGroup, Kind: api.KindTCPRoute},
			{Group: api.GatewayGroup, Kind: api.KindTLSRoute},
		},
		Inputs:      []schema.GroupKind{egressNetworkGK},
		StrictError: true,
		Fields: func(s Subject) []string {
			var out []string
			for _, p := range egressParents(s) {
				out = append(out, p.path.String())
			}
			return out
		},
		Run: runMissingEgressNetwork,
	}
}

func runMissingEgressNetwork(ctx context.Context, s Subject, src Source) field.ErrorList {
	var out field.ErrorList
	for _, p := range egressParents(s) {
		nets, known := src.List(ctx, egressNetworkGK, p.namespace)
		if !known || hasName(nets, p.name) {
			continue
		}
		out = append(out, field.Invalid(p.path, field.OmitValueType{}, missingEgressMessage(p.name, p.namespace, src.Scope())).
			WithOrigin(validate.CodeLinkerdMissingEgressNet))
	}
	return out
}

func missingEgressMessage(name, ns string, scope Scope) string {
	if scope == ScopeCluster {
		return fmt.Sprintf("the parent EgressNetwork %s (namespace %s) does not exist in the cluster; Linkerd leaves the route unattached until it exists: apply it, or fix the parentRef",
			name, ns)
	}
	return fmt.Sprintf("the parent EgressNetwork %s (namespace %s) is not in the linted files; Linkerd leaves the route unattached until it exists: lint it with the route, or check it exists in the cluster",
		name, ns)
}

// egressParent is one parentRef naming an EgressNetwork.
type egressParent struct {
	path            *field.Path
	namespace, name string
}

// egressParents are the subject's parentRefs that name an EgressNetwork, with the
// namespace each resolves in (the route's own when it names none).
func egressParents(s Subject) []egressParent {
	var out []egressParent
	group := s.Object.GroupVersionKind().Group
	for i, p := range routeParents(s.Spec) {
		if !api.IsEgressNetworkParent(p, group) {
			continue
		}
		ns := p.Namespace
		if ns == "" {
			ns = s.Namespace()
		}
		out = append(out, egressParent{path: field.NewPath("spec", "parentRefs").Index(i), namespace: ns, name: p.Name})
	}
	return out
}

// routeParents are the parentRefs of a typed route spec, nil for other kinds.
func routeParents(spec any) []api.ParentRef {
	switch s := spec.(type) {
	case *api.LinkerdHTTPRouteSpec:
		return s.ParentRefs
	case *api.GatewayHTTPRouteSpec:
		return s.ParentRefs
	case *api.GatewayGRPCRouteSpec:
		return s.ParentRefs
	case *api.GatewayTCPRouteSpec:
		return s.ParentRefs
	case *api.GatewayTLSRouteSpec:
		return s.ParentRefs
	}
	return nil
}
