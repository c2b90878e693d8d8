package kumainspect

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumarules"
)

// dataplaneRules answers /meshes/{mesh}/dataplanes/{name}/_rules.
func (s *Store) dataplaneRules(mesh, name string) Response {
	m, found := s.find(api.KindMesh, "", mesh)
	if !found {
		return notFound("Failed to retrieve Mesh")
	}
	dp, found := s.find(api.KindDataplane, mesh, name)
	if !found {
		return notFound("Could not retrieve Dataplane")
	}
	return s.rulesFor(m, metaOf(dp.Meta, api.KindDataplane), *dp.dp)
}

// rulesFor is the _rules body for a proxy: for every policy kind, in the API's
// order, what the policies that select it give it. Kinds that give nothing are
// left out.
func (s *Store) rulesFor(mesh object, resource meta, dp kumarules.Dataplane) Response {
	matches := map[string]any{}
	out := rulesResponse{HTTPMatches: []httpMatch{}, Resource: resource, Rules: []inspectRule{}}
	for _, kind := range s.types.policies {
		res, err := s.matched(kind, dp, kumarules.MatchOptions{})
		if err != nil {
			return internalError(fmt.Sprintf("could not apply policy plugin %s", s.pluginName(kind)))
		}
		if kind == string(api.RefMeshHTTPRoute) {
			collectMatches(matches, res)
		}
		if r, any := s.inspectRule(kind, mesh, dp, res); any {
			out.Rules = append(out.Rules, r)
		}
	}
	for h, m := range matches {
		out.HTTPMatches = append(out.HTTPMatches, httpMatch{Hash: h, Match: m})
	}
	sort.Slice(out.HTTPMatches, func(i, j int) bool { return out.HTTPMatches[i].Hash < out.HTTPMatches[j].Hash })
	return ok(out)
}

// pluginName is the name Kuma registers a policy's plugin under (its kumactl
// argument, the plural in lower case).
func (s *Store) pluginName(kind string) string {
	if k := s.reg.Storage(api.KumaGroup, kind); k != nil {
		return strings.ToLower(k.Plural)
	}
	return strings.ToLower(kind)
}

// collectMatches records, by hash, the matches of every MeshHTTPRoute rule in the
// to rules and resource rules (the httpMatches of the answer).
func collectMatches(into map[string]any, res kumarules.Matched) {
	add := func(conf any) {
		c, _ := conf.(map[string]any)
		rules, _ := c["rules"].([]any)
		for _, r := range rules {
			rm, _ := r.(map[string]any)
			if h, err := kumarules.HashMatches(rm["matches"]); err == nil {
				into[h] = rm["matches"]
			}
		}
	}
	for _, r := range res.ToRules.Rules {
		add(r.Conf)
	}
	for _, rr := range res.ToRules.ResourceRules {
		for _, c := range rr.Conf {
			add(c)
		}
	}
}

// inspectRule is one kind's entry; any is false when the kind gives the proxy
// nothing.
func (s *Store) inspectRule(kind string, mesh object, dp kumarules.Dataplane, res kumarules.Matched) (inspectRule, bool) {
	toRules := []subsetRule{}
	if !meshServicesExclusive(mesh) { // legacy to rules do not reach real-resource outbounds
		for _, r := range res.ToRules.Rules {
			toRules = append(toRules, s.subsetRule(kind, r))
		}
	}
	var proxy *proxyRule
	if len(res.Single.Rules) > 0 {
		r := res.Single.Rules[0]
		proxy = &proxyRule{Conf: r.Conf, Origin: originMetas(kind, r.Origins)}
	}
	from, inbound := s.inboundEntries(kind, dp, res)
	resources := s.resourceRules(kind, dp.Mesh, res.ToRules.ResourceRules)
	if proxy == nil && len(from) == 0 && len(toRules) == 0 && len(resources) == 0 && len(inbound) == 0 {
		return inspectRule{}, false
	}
	warnings := res.Warnings
	if warnings == nil {
		warnings = []string{}
	}
	return inspectRule{Type: kind, ToRules: &toRules, ToResourceRules: &resources, FromRules: &from,
		InboundRules: &inbound, ProxyRule: proxy, Warnings: &warnings}, true
}

func (s *Store) subsetRule(kind string, r kumarules.Rule) subsetRule {
	m := []ruleMatcher{}
	for _, t := range r.Subset {
		m = append(m, ruleMatcher{Key: t.Key, Value: t.Value, Not: t.Not})
	}
	return subsetRule{Conf: r.Conf, Matchers: m, Origin: originMetas(kind, r.Origins)}
}

func originMetas(kind string, origins []kumarules.Origin) []meta {
	out := make([]meta, len(origins))
	for i, o := range origins {
		out[i] = metaOf(o.Meta, kind)
	}
	return out
}

func ruleOrigins(kind string, origins ...kumarules.Origin) []ruleOrigin {
	var out []ruleOrigin
	for _, o := range origins {
		m, idx := metaOf(o.Meta, kind), o.Index
		out = append(out, ruleOrigin{ResourceMeta: &m, RuleIndex: &idx})
	}
	return out
}

// inboundEntries are the from rules and the inbound rules per inbound, by port.
func (s *Store) inboundEntries(kind string, dp kumarules.Dataplane, res kumarules.Matched) ([]fromRule, []inboundRulesEntry) {
	listeners := make([]kumarules.Listener, 0, len(res.FromRules))
	for l := range res.FromRules {
		listeners = append(listeners, l)
	}
	slices.SortFunc(listeners, func(a, b kumarules.Listener) int {
		if c := cmp.Compare(listenerPort(a), listenerPort(b)); c != 0 {
			return c
		}
		return strings.Compare(string(a), string(b))
	})
	from, inbound := []fromRule{}, []inboundRulesEntry{}
	for _, l := range listeners {
		fr := res.FromRules[l]
		ref := inboundFor(dp, listenerPort(l))
		if len(fr.Rules) > 0 {
			e := fromRule{Inbound: ref}
			for _, r := range fr.Rules {
				e.Rules = append(e.Rules, s.subsetRule(kind, r))
			}
			from = append(from, e)
		}
		if len(fr.InboundRules) > 0 {
			e := inboundRulesEntry{Inbound: ref}
			for _, r := range fr.InboundRules {
				e.Rules = append(e.Rules, inboundRule{Conf: []any{r.Conf}, Match: r.Match, Origin: ruleOrigins(kind, r.Origin)})
			}
			inbound = append(inbound, e)
		}
	}
	return from, inbound
}

// listenerPort is the port of an address:port listener.
func listenerPort(l kumarules.Listener) int {
	i := strings.LastIndexByte(string(l), ':')
	p, _ := strconv.Atoi(string(l)[i+1:])
	return p
}

// inboundFor names an inbound as Kuma's _rules does: the first inbound on the port
// (its name, when it has one, and its tags), the gateway's tags for a gateway, no
// tags for an embedded listener.
func inboundFor(dp kumarules.Dataplane, port int) inboundRef {
	ref := inboundRef{Port: port}
	if dp.Gateway != "" {
		ref.Tags = dp.GatewayTags
	}
	for _, in := range dp.Inbounds {
		if in.Port != port {
			continue
		}
		if in.Name != "" {
			name := in.Name
			ref.Name = &name
		}
		if dp.Gateway == "" {
			ref.Tags = in.Tags
		}
		break
	}
	return ref
}

// resourceRules are the rules of real resources, by resource name.
func (s *Store) resourceRules(kind, mesh string, rules map[string]kumarules.ResourceRule) []resourceRule {
	out := []resourceRule{}
	for _, rr := range rules {
		res, found := s.resourceByKRI(mesh, rr.Resource)
		if !found {
			continue
		}
		section := rr.Resource.Section
		out = append(out, resourceRule{Conf: rr.Conf, Origin: ruleOrigins(kind, rr.Origins...),
			ResourceMeta: metaOf(res, rr.Resource.Type), ResourceSectionName: &section})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].ResourceMeta.Name != out[j].ResourceMeta.Name {
			return out[i].ResourceMeta.Name < out[j].ResourceMeta.Name
		}
		return *out[i].ResourceSectionName < *out[j].ResourceSectionName
	})
	return out
}

// resourceByKRI is the object a resource rule is for.
func (s *Store) resourceByKRI(mesh string, k kumarules.KRI) (kumarules.Meta, bool) {
	for _, o := range s.objects {
		if o.Type != k.Type {
			continue
		}
		if o.Type == api.KindMesh {
			if o.Name == k.Name {
				return o.Meta, true
			}
			continue
		}
		id := kriOf(o.Meta, o.Type)
		if o.Mesh == mesh && id.Zone == k.Zone && id.Namespace == k.Namespace && id.Name == k.Name && id.Mesh == k.Mesh {
			return o.Meta, true
		}
	}
	return kumarules.Meta{}, false
}
