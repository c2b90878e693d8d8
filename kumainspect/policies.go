package kumainspect

import (
	"fmt"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumarules"
)

// typedMatched is what the policies of one kind give a proxy.
type typedMatched struct {
	kind string
	res  kumarules.Matched
}

// proxyContext is what every _policies endpoint reads first, as Kuma's
// getPoliciesConf does: the mesh, the Dataplane, the mesh's meshServices mode, and
// what each policy kind of kinds gives the Dataplane. A non-zero Response is the
// error Kuma answers instead.
func (s *Store) proxyContext(mesh, name string, kinds []string) (object, object, []typedMatched, *Response) {
	m, found := s.find(api.KindMesh, "", mesh)
	if !found {
		r := notFound("Failed to retrieve Mesh")
		return object{}, object{}, nil, &r
	}
	dp, found := s.find(api.KindDataplane, mesh, name)
	if !found {
		r := notFound("Could not retrieve Dataplane")
		return object{}, object{}, nil, &r
	}
	if !meshServicesExclusive(m) {
		r := badRequest("can't use _policies endpoint without meshService enabled")
		return object{}, object{}, nil, &r
	}
	var out []typedMatched
	for _, kind := range kinds {
		// Exclusive, checked above: no _policies answer shows the legacy to rules.
		res, err := s.matched(kind, *dp.dp, kumarules.MatchOptions{SkipLegacyTo: true})
		if err != nil {
			r := internalError(fmt.Sprintf("could not apply policy plugin %s", s.pluginName(kind)))
			return object{}, object{}, nil, &r
		}
		out = append(out, typedMatched{kind: kind, res: res})
	}
	return m, dp, out, nil
}

// proxyPolicies answers …/dataplanes/{name}/_policies: each single-item kind's
// merged conf for the whole proxy.
func (s *Store) proxyPolicies(mesh, name string) Response {
	_, _, matched, errResp := s.proxyContext(mesh, name, s.types.policies)
	if errResp != nil {
		return *errResp
	}
	out := policiesList{Policies: []policyConf{}}
	for _, m := range matched {
		if len(m.res.Single.Rules) == 0 {
			continue
		}
		r := m.res.Single.Rules[0]
		out.Policies = append(out.Policies, policyConf{Conf: r.Conf, Kind: m.kind, Origins: s.policyOrigins(m.kind, r.Origins)})
	}
	return ok(out)
}

// policyOrigins are the origins' KRIs, in merge order.
func (s *Store) policyOrigins(kind string, origins []kumarules.Origin) []policyOrigin {
	out := make([]policyOrigin, len(origins))
	for i, o := range origins {
		out[i] = policyOrigin{Kri: s.types.kriString(kriOf(o.Meta, kind))}
	}
	return out
}

// inboundPolicies answers …/_inbounds/{kri}/_policies: for each kind, the rules
// Kuma applies to the inbound (or embedded listener) the KRI's section names, in
// order, and the policies they came from.
func (s *Store) inboundPolicies(mesh, name, inboundKRI string) Response {
	_, dp, matched, errResp := s.proxyContext(mesh, name, s.types.policies)
	if errResp != nil {
		return *errResp
	}
	id, err := s.types.parseKRI(inboundKRI)
	if err != nil {
		return badRequest(err.Error())
	}
	listener, found := inboundBySection(*dp.dp, id.Section)
	if !found {
		return internalError("Failed building response") // Kuma: errors.New("inbound not found")
	}
	out := inboundPoliciesList{Policies: []inboundPolicyConf{}}
	for _, m := range matched {
		rules := m.res.FromRules[listener].InboundRules
		if len(rules) == 0 {
			continue
		}
		e := inboundPolicyConf{Kind: m.kind}
		seen := map[string]bool{}
		for _, r := range rules {
			k := s.types.kriString(kriOf(r.Origin.Meta, m.kind))
			e.Rules = append(e.Rules, policyRule{Conf: r.Conf, Kri: &k})
			if !seen[r.Origin.Type+"/"+r.Origin.Mesh+"/"+r.Origin.Name] {
				seen[r.Origin.Type+"/"+r.Origin.Mesh+"/"+r.Origin.Name] = true
				e.Origins = append(e.Origins, policyOrigin{Kri: k})
			}
		}
		out.Policies = append(out.Policies, e)
	}
	return ok(out)
}

// inboundBySection is the listener (address:port) of the first inbound the section
// name selects (an empty one selects every inbound), else of the first embedded
// listener it selects.
func inboundBySection(dp kumarules.Dataplane, section string) (kumarules.Listener, bool) {
	for _, group := range [][]kumarules.Inbound{dp.Inbounds, dp.Listeners} {
		for _, in := range group {
			if section == "" || in.SectionName() == section {
				return kumarules.Listener(fmt.Sprintf("%s:%d", in.Address, in.Port)), true
			}
		}
	}
	return "", false
}

// outboundPolicies answers …/_outbounds/{kri}/_policies: for each kind, the
// resource rule of the outbound's port, else of its whole resource, else of the
// mesh.
func (s *Store) outboundPolicies(mesh, name, outboundKRI string) Response {
	m, _, matched, errResp := s.proxyContext(mesh, name, s.types.policies)
	if errResp != nil {
		return *errResp
	}
	id, err := s.types.parseKRI(outboundKRI)
	if err != nil {
		return badRequest(err.Error())
	}
	whole := id
	whole.Section = ""
	out := policiesList{Policies: []policyConf{}}
	for _, t := range matched {
		r := resourceRuleFor(t.res.ToRules.ResourceRules, m.Name, whole, id)
		if r == nil {
			continue
		}
		out.Policies = append(out.Policies, policyConf{Conf: r.Conf, Kind: t.kind, Origins: s.policyOrigins(t.kind, r.Origins)})
	}
	return ok(out)
}

// resourceRuleFor walks Kuma's outbound rule context: the mesh's rule, replaced by
// the rule of each id in turn that has one. Nil when none has.
func resourceRuleFor(rules map[string]kumarules.ResourceRule, mesh string, ids ...kri) *kumarules.ResourceRule {
	found, any := rules[ruleKey(kri{Type: api.KindMesh, Name: mesh})]
	for _, id := range ids {
		if r, ok := rules[ruleKey(id)]; ok {
			found, any = r, true
		}
	}
	if !any {
		return nil
	}
	return &found // one copy on the heap per answer, not one per rule found
}
