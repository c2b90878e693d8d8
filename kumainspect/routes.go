package kumainspect

import (
	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumarules"
)

// routeKinds are the route policies, which …/_routes lists and
// …/_routes/{kri}/_policies leaves out.
func routeKinds() []string { return []string{string(api.RefMeshHTTPRoute), api.KindMeshTCPRoute} }

// isRouteKind reports whether kind is one of routeKinds.
func isRouteKind(kind string) bool {
	return kind == string(api.RefMeshHTTPRoute) || kind == api.KindMeshTCPRoute
}

func (s *Store) nonRouteKinds() []string {
	var out []string
	for _, k := range s.types.policies {
		if !isRouteKind(k) {
			out = append(out, k)
		}
	}
	return out
}

// outboundRoutes answers …/_outbounds/{kri}/_routes: the merged route rules of the
// outbound, each with the route it came from.
func (s *Store) outboundRoutes(mesh, name, outboundKRI string) Response {
	_, _, matched, errResp := s.proxyContext(mesh, name, routeKinds())
	if errResp != nil {
		return *errResp
	}
	id, err := s.types.parseKRI(outboundKRI)
	if err != nil {
		return badRequest(err.Error())
	}
	out := routesList{Routes: []routeConf{}}
	for _, t := range matched {
		r := kumarules.ComputeResourceRule(t.res.ToRules.ResourceRules,
			kumarules.KRI{Type: id.Type, Mesh: id.Mesh, Zone: id.Zone, Namespace: id.Namespace, Name: id.Name, Section: id.Section})
		if r == nil {
			continue
		}
		rc := routeConf{Kind: t.kind, Origins: s.policyOrigins(t.kind, r.Origins)}
		for _, c := range r.Conf {
			rc.Rules = append(rc.Rules, s.routeRules(t.kind, c, r.Origins)...)
		}
		out.Routes = append(out.Routes, rc)
	}
	return ok(out)
}

// routeRules lists one merged route conf's rules. A MeshHTTPRoute rule is named by
// the last route, in merge order, that has a rule with its matches.
func (s *Store) routeRules(kind string, conf any, origins []kumarules.Origin) []routeRules {
	c, _ := conf.(map[string]any)
	if kind == api.KindMeshTCPRoute {
		return []routeRules{{Conf: c["default"], Matches: nil}}
	}
	var out []routeRules
	for _, r := range list(c["rules"]) {
		rm, _ := r.(map[string]any)
		hash, _ := kumarules.HashMatches(rm["matches"])
		rr := routeRules{Conf: rm["default"], Matches: list(rm["matches"])}
		for i := len(origins) - 1; i >= 0; i-- {
			if s.routeHasMatches(origins[i].Meta, hash) {
				rr.Kri = s.types.kriString(kriOf(origins[i].Meta, kind))
				break
			}
		}
		out = append(out, rr)
	}
	return out
}

// routeHasMatches reports whether a route has a rule whose matches hash to hash.
func (s *Store) routeHasMatches(m kumarules.Meta, hash string) bool {
	o, found := s.find(m.Type, m.Mesh, m.Name)
	if !found {
		return false
	}
	for _, t := range list(o.Spec["to"]) {
		tm, _ := t.(map[string]any)
		for _, r := range list(tm["rules"]) {
			rm, _ := r.(map[string]any)
			if h, err := kumarules.HashMatches(rm["matches"]); err == nil && h == hash {
				return true
			}
		}
	}
	return false
}

// routePolicies answers …/_outbounds/{kri}/_routes/{kri}/_policies: for each
// non-route kind, the resource rule of the route, else of the outbound's port,
// else of its resource, else of the mesh.
func (s *Store) routePolicies(mesh, name, outboundKRI, routeKRI string) Response {
	m, _, matched, errResp := s.proxyContext(mesh, name, s.nonRouteKinds())
	if errResp != nil {
		return *errResp
	}
	out, err := s.types.parseKRI(outboundKRI)
	if err != nil {
		return badRequest(err.Error())
	}
	route, err := s.types.parseKRI(routeKRI)
	if err != nil {
		return badRequest(err.Error())
	}
	whole := out
	whole.Section = ""
	body := policiesList{Policies: []policyConf{}}
	for _, t := range matched {
		r := resourceRuleFor(t.res.ToRules.ResourceRules, m.Name, whole, out, route)
		if r == nil {
			continue
		}
		body.Policies = append(body.Policies, policyConf{Conf: r.Conf, Kind: t.kind, Origins: s.policyOrigins(t.kind, r.Origins)})
	}
	return ok(body)
}
