package lint

import (
	"fmt"
	"strings"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/validate"
)

// egressStage reports routes of the linted set parented to an EgressNetwork that the
// set does not hold (MG369): Linkerd leaves such a route unattached, so its rules do
// nothing. Like the reference checks, it judges only where the set can see: a
// parent in a namespace the set holds EgressNetworks of (a lint of one route file
// stays quiet), and everywhere with --strict-references, where the finding is an
// error. Otherwise the EgressNetwork may exist in the cluster only, so it is a
// warning. Routes and EgressNetworks the webhook would deny are left out.
type egressStage struct {
	namespace string // of documents that name none
	strict    bool
	networks  map[string]bool
	routes    []egressRoute
}

// egressRoute is one route's EgressNetwork parents, with where they are written.
type egressRoute struct {
	parents []egressParent
	anchor  Anchor
}

type egressParent struct {
	key, path string
}

// egressNetworkSummary is an EgressNetwork of the set, as "namespace/name".
type egressNetworkSummary string

func (s *egressStage) Summarize(c Checked) any {
	if c.Kind == nil || c.Kind.Family != api.FamilyLinkerd || c.Denied {
		return nil
	}
	ns := c.Object.GetNamespace()
	if ns == "" {
		ns = s.namespace
	}
	if c.Kind.Group == api.LinkerdGroup && c.Kind.Kind == api.KindEgressNetwork {
		return egressNetworkSummary(ns + "/" + c.Object.GetName())
	}
	refs := routeParents(c.Spec)
	var r egressRoute
	var paths []string
	for i, p := range refs {
		if !api.IsEgressNetworkParent(p, c.Kind.Group) {
			continue
		}
		pns := p.Namespace
		if pns == "" {
			pns = ns
		}
		path := fmt.Sprintf("spec.parentRefs[%d]", i)
		r.parents = append(r.parents, egressParent{key: pns + "/" + p.Name, path: path})
		paths = append(paths, path)
	}
	if len(r.parents) == 0 {
		return nil
	}
	r.anchor = NewAnchor(c.Doc, paths...)
	return &r
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

func (s *egressStage) Add(v any) {
	switch v := v.(type) {
	case egressNetworkSummary:
		if s.networks == nil {
			s.networks = map[string]bool{}
		}
		s.networks[string(v)] = true
	case *egressRoute:
		s.routes = append(s.routes, *v)
	}
}

func (s *egressStage) Findings() []Finding {
	covered := map[string]bool{} // namespaces the set holds EgressNetworks of
	for key := range s.networks {
		ns, _, _ := strings.Cut(key, "/")
		covered[ns] = true
	}
	severity := validate.SeverityWarning
	if s.strict {
		severity = validate.SeverityError
	}
	var out []Finding
	for _, r := range s.routes {
		for _, p := range r.parents {
			ns, name, _ := strings.Cut(p.key, "/")
			if s.networks[p.key] || (!s.strict && !covered[ns]) {
				continue
			}
			out = append(out, r.anchor.Finding(severity, validate.CodeLinkerdMissingEgressNet, p.path,
				fmt.Sprintf("the parent EgressNetwork %s (namespace %s) is not in the linted files; Linkerd leaves the route unattached until it exists: lint it with the route, or check it exists in the cluster",
					name, ns)))
		}
	}
	return out
}
