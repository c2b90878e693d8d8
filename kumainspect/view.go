package kumainspect

import (
	"fmt"
	"sort"
	"strings"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumarules"
)

// View is what one proxy gets from the policies, gathered for a person (its
// confs and origin lists are shared with the other views of the store: read
// them, do not modify them): the
// single-item policies of the whole proxy, then each inbound and each outbound it
// can reach with every kind's merged conf (inbounds: the rules in the order Kuma
// applies them) and the policy items it came from. It is what Kuma's _policies,
// _inbounds/{kri}/_policies and _outbounds/{kri}/_policies answer, in one piece,
// without their requirement that the mesh's meshServices mode be Exclusive.
type View struct {
	Mesh      string
	Dataplane string
	KRI       string
	Proxy     []Entry
	Inbounds  []Port
	Outbounds []Port
	// Selecting are the policies whose top-level targetRef selects the proxy,
	// of every kind, in each kind's merge order.
	Selecting []kumarules.Meta
	// Listeners are a builtin gateway proxy's listeners (see GatewayListener).
	Listeners []GatewayListener
}

// Port is one inbound or outbound of the proxy.
type Port struct {
	KRI      string
	Name     string
	Port     int
	Protocol string
	Entries  []Entry
	// Routes are, on an outbound, the MeshHTTPRoutes and MeshTCPRoutes its route
	// entries came from that policies target themselves (`to` a route): each
	// kind's conf for the route's traffic, as Kuma's
	// …/_outbounds/{kri}/_routes/{kri}/_policies gives it.
	Routes []Route
}

// Route is one route of an outbound and the policies of every kind that
// target it.
type Route struct {
	KRI     string
	Entries []Entry
}

// Entry is one policy kind's result on a port (or the whole proxy): Conf is the
// merged conf, or for an inbound the Rules in order; Origins are the contributing
// policy items in merge order. Clients are an inbound's `from` results per group
// of clients, for the kinds Kuma does not turn into rules (MeshTrafficPermission,
// MeshFaultInjection): Kuma's _rules shows them, its _inbounds/{kri}/_policies
// does not.
type Entry struct {
	Kind string
	// To is the destinations a builtin gateway listener's rule is for ("every
	// destination" or kuma.io/service tags); "" elsewhere.
	To      string
	Conf    any
	Rules   []Rule
	Clients []Clients
	Origins []Origin
}

// Clients is the conf one group of clients (a subset of tags, "!" negating) gets
// on an inbound, merged from Origins.
type Clients struct {
	Subset  string
	Conf    any
	Origins []Origin
}

// Rule is one inbound rule: its conf and the item it came from.
type Rule struct {
	Match  any
	Conf   any
	Origin Origin
}

// Origin is a policy item: the policy's KRI and name, the item's place in it
// (spec.to[0], spec.rules[1], spec.default) and the conf the item itself sets.
type Origin struct {
	KRI    string
	Policy string
	Item   string
	Conf   any
}

// View computes the View of Dataplane name in mesh. The error names a mesh or
// Dataplane that is not in the store.
func (s *Store) View(mesh, name string) (View, error) { return s.ViewKinds(mesh, name, nil) }

// ViewKinds is View with the entries of the policy kinds in only (nil: every
// kind): what a diff computes for a proxy when only policies of those kinds
// changed (AffectedKinds). The routes' kinds are always computed, since they
// say which routes an outbound lists. Each kind is matched and merged apart
// from the others, so its entries are View's.
func (s *Store) ViewKinds(mesh, name string, only map[string]bool) (View, error) {
	if _, found := s.find(api.KindMesh, "", mesh); !found {
		return View{}, fmt.Errorf("mesh %q is not in the input", mesh)
	}
	dp, found := s.find(api.KindDataplane, mesh, name)
	if !found {
		return View{}, fmt.Errorf("Dataplane %q of mesh %q is not in the input", name, mesh)
	}
	self := kriOf(dp.Meta, api.KindDataplane)
	v := View{Mesh: mesh, Dataplane: name, KRI: s.types.kriString(self)}
	matched := make([]typedMatched, 0, len(s.types.policies))
	// A builtin gateway's listeners need the subset to rules, which Kuma's
	// gateway plugins read whatever the mesh's MeshServices mode.
	opts := kumarules.MatchOptions{SkipLegacyTo: dp.dp.Gateway != gatewayBuiltin}
	for _, kind := range s.types.policies {
		if only != nil && !only[kind] && !isRouteKind(kind) {
			continue
		}
		res, err := s.matched(kind, *dp.dp, opts)
		if err != nil {
			return View{}, err
		}
		matched = append(matched, typedMatched{kind: kind, res: res})
		for _, p := range res.Policies {
			v.Selecting = append(v.Selecting, p.Meta)
		}
		if len(res.Single.Rules) > 0 {
			r := res.Single.Rules[0]
			v.Proxy = append(v.Proxy, Entry{Kind: kind, Conf: r.Conf, Origins: s.viewOrigins(kind, "default", r.Origins)})
		}
	}
	for _, in := range dp.dp.Inbounds {
		id := self
		id.Section = in.SectionName()
		p := Port{KRI: s.types.kriString(id), Name: in.Name, Port: in.Port, Protocol: in.Tags["kuma.io/protocol"]}
		listener := kumarules.Listener(fmt.Sprintf("%s:%d", in.Address, in.Port))
		for _, m := range matched {
			if e, any := s.inboundEntry(m, listener); any {
				p.Entries = append(p.Entries, e)
			}
		}
		v.Inbounds = append(v.Inbounds, p)
	}
	v.Outbounds = s.outboundPorts(dp, matched)
	v.Listeners = s.gatewayListeners(dp, matched)
	return v, nil
}

// inboundEntry is one kind's rules on an inbound.
func (s *Store) inboundEntry(m typedMatched, l kumarules.Listener) (Entry, bool) {
	rules := m.res.FromRules[l].InboundRules
	if len(rules) == 0 {
		return s.clientsEntry(m, l)
	}
	e := Entry{Kind: m.kind}
	seen := map[string]bool{}
	for _, r := range rules {
		o := s.viewOrigin(m.kind, s.inboundSection(r.Origin.Meta), r.Origin)
		e.Rules = append(e.Rules, Rule{Match: r.Match, Conf: r.Conf, Origin: o})
		if !seen[o.KRI] {
			seen[o.KRI] = true
			e.Origins = append(e.Origins, o)
		}
	}
	return e, true
}

// clientsEntry is one kind's legacy `from` rules on an inbound, when Kuma keeps
// them as such.
func (s *Store) clientsEntry(m typedMatched, l kumarules.Listener) (Entry, bool) {
	if api.KumaFromAsRules(m.kind) || len(m.res.FromRules[l].Rules) == 0 {
		return Entry{}, false
	}
	e := Entry{Kind: m.kind}
	seen := map[string]bool{}
	for _, r := range m.res.FromRules[l].Rules {
		c := Clients{Subset: subsetText(r.Subset), Conf: r.Conf, Origins: s.clientItems(m.kind, r)}
		e.Clients = append(e.Clients, c)
		for _, o := range c.Origins {
			if !seen[o.KRI] {
				seen[o.KRI] = true
				e.Origins = append(e.Origins, o)
			}
		}
	}
	return e, true
}

// clientItems are the `from` items that apply to a rule's clients, policy by
// policy in merge order: each item of an origin policy (from the first that
// contributes) whose clients include the rule's.
func (s *Store) clientItems(kind string, r kumarules.Rule) []Origin {
	var out []Origin
	for _, o := range r.Origins {
		p, found := s.find(o.Type, o.Mesh, o.Name)
		items := list(p.Spec["from"])
		if !found {
			continue
		}
		for i := o.Index; i < len(items); i++ {
			item, _ := items[i].(map[string]any)
			ref, _ := item["targetRef"].(map[string]any)
			if ss, ok := clientSubset(ref); ok && ss.Includes(r.Subset) {
				at := o
				at.Index = i
				out = append(out, s.viewOrigin(kind, "from", at))
			}
		}
	}
	return out
}

// clientSubset is the clients a legacy `from` targetRef selects, as tags.
func clientSubset(ref map[string]any) (kumarules.Subset, bool) {
	var ss kumarules.Subset
	switch str(ref["kind"]) {
	case api.KindMesh, "":
		return ss, true
	case api.KindMeshService:
		return kumarules.Subset{{Key: "kuma.io/service", Value: str(ref["name"])}}, true
	case api.KindMeshServiceSubset:
		ss = kumarules.Subset{{Key: "kuma.io/service", Value: str(ref["name"])}}
	case api.KindMeshSubset:
	default:
		return nil, false
	}
	tags := stringMap(ref["tags"])
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ss = append(ss, kumarules.Tag{Key: k, Value: tags[k]})
	}
	return ss, true
}

// subsetText writes a subset as k=v pairs, "!" before a negated value; "all
// clients" for the empty one.
func subsetText(ss kumarules.Subset) string {
	if len(ss) == 0 {
		return "all clients"
	}
	parts := make([]string, len(ss))
	for i, t := range ss {
		v := t.Value
		if t.Not {
			v = "!" + v
		}
		parts[i] = t.Key + "=" + v
	}
	return strings.Join(parts, ",")
}

// inboundSection is the section an inbound rule came from: a policy's `rules`, or
// its `from` items, which Kuma turns into rules for some kinds.
func (s *Store) inboundSection(m kumarules.Meta) string {
	if o, found := s.find(m.Type, m.Mesh, m.Name); found && o.Spec["rules"] != nil {
		return "rules"
	}
	return "from"
}

// outboundPorts are the outbounds the proxy can reach, by KRI, each with every
// kind's resource rule.
func (s *Store) outboundPorts(dp object, matched []typedMatched) []Port {
	reach := s.reachable(dp)
	ids := make([]kri, 0, len(reach))
	for id := range reach {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return s.types.kriString(ids[i]) < s.types.kriString(ids[j]) })
	var out []Port
	for _, id := range ids {
		p := Port{KRI: s.types.kriString(id), Name: id.Section, Port: reach[id].value, Protocol: reach[id].protocol}
		whole := id
		whole.Section = ""
		for _, m := range matched {
			r := resourceRuleFor(m.res.ToRules.ResourceRules, dp.Mesh, whole, id)
			if r == nil {
				continue
			}
			p.Entries = append(p.Entries, Entry{Kind: m.kind, Conf: r.Conf, Origins: s.viewOrigins(m.kind, "to", r.Origins)})
		}
		p.Routes = s.outboundRoutesView(p.Entries, matched)
		out = append(out, p)
	}
	return out
}

// viewOrigins are a rule's origins as the view shows them. The engine shares a
// rule among the proxies its policies select, so the list is converted once per
// rule (known by its first element's address) and shared by their views.
func (s *Store) viewOrigins(kind, section string, origins []kumarules.Origin) []Origin {
	if len(origins) == 0 {
		return []Origin{}
	}
	key := originsKey{kind: kind, section: section, first: &origins[0], n: len(origins)}
	if out, ok := s.originLists[key]; ok {
		return out
	}
	out := make([]Origin, len(origins))
	for i, o := range origins {
		out[i] = s.viewOrigin(kind, section, o)
	}
	if s.originLists == nil {
		s.originLists = map[originsKey][]Origin{}
	}
	s.originLists[key] = out
	return out
}

func (s *Store) viewOrigin(kind, section string, o kumarules.Origin) Origin {
	key := originKey{kind: kind, section: section, typ: o.Type, mesh: o.Mesh, name: o.Name, index: o.Index}
	if v, ok := s.origins[key]; ok {
		return v
	}
	if s.origins == nil {
		s.origins = map[originKey]Origin{}
	}
	v := s.computeOrigin(kind, section, o)
	s.origins[key] = v
	return v
}

func (s *Store) computeOrigin(kind, section string, o kumarules.Origin) Origin {
	out := Origin{KRI: s.types.kriString(kriOf(o.Meta, kind)), Policy: o.Name, Item: "spec.default"}
	p, found := s.find(o.Type, o.Mesh, o.Name)
	if section == "default" {
		if found {
			out.Conf = p.Spec["default"]
		}
		return out
	}
	out.Item = fmt.Sprintf("spec.%s[%d]", section, o.Index)
	if items := list(p.Spec[section]); found && o.Index < len(items) {
		item, _ := items[o.Index].(map[string]any)
		out.Conf = item["default"]
	}
	return out
}

// KumaJSON is the view in Kuma's own shapes: the _policies body of the proxy,
// and for each inbound and outbound its KRI and the body of its _policies.
func (v View) KumaJSON() map[string]any {
	type port struct {
		KRI      string `json:"kri"`
		Policies any    `json:"policies"`
	}
	origins := kriOrigins
	proxy := []policyConf{}
	for _, e := range v.Proxy {
		proxy = append(proxy, policyConf{Conf: e.Conf, Kind: e.Kind, Origins: origins(e.Origins)})
	}
	inbounds := []port{}
	for _, p := range v.Inbounds {
		inbounds = append(inbounds, port{KRI: p.KRI, Policies: inboundJSON(p.Entries)})
	}
	outbounds := []port{}
	for _, p := range v.Outbounds {
		list := []policyConf{}
		for _, e := range p.Entries {
			list = append(list, policyConf{Conf: e.Conf, Kind: e.Kind, Origins: origins(e.Origins)})
		}
		outbounds = append(outbounds, port{KRI: p.KRI, Policies: list})
	}
	out := map[string]any{"kri": v.KRI, "policies": proxy, "inbounds": inbounds, "outbounds": outbounds}
	if len(v.Listeners) > 0 {
		out["gatewayListeners"] = listenersJSON(v.Listeners)
	}
	return out
}

// kriOrigins are origins as Kuma's _policies lists them: by KRI.
func kriOrigins(os []Origin) []policyOrigin {
	out := make([]policyOrigin, len(os))
	for i, o := range os {
		out[i] = policyOrigin{Kri: o.KRI}
	}
	return out
}

// inboundJSON is an inbound's entries in the shape of Kuma's
// …/_inbounds/{kri}/_policies.
func inboundJSON(entries []Entry) []inboundPolicyConf {
	list := []inboundPolicyConf{}
	for _, e := range entries {
		c := inboundPolicyConf{Kind: e.Kind, Origins: kriOrigins(e.Origins)}
		for _, r := range e.Rules {
			k := r.Origin.KRI
			c.Rules = append(c.Rules, policyRule{Conf: r.Conf, Kri: &k})
		}
		list = append(list, c)
	}
	return list
}

// outboundRoutesView are the routes an outbound's route entries came from (in
// KRI order) that some policy of another kind targets: only a rule keyed by the
// route itself, since for every other route Kuma gives the outbound's conf.
func (s *Store) outboundRoutesView(entries []Entry, matched []typedMatched) []Route {
	seen := map[string]bool{}
	var routes []string
	for _, e := range entries {
		if !isRouteKind(e.Kind) {
			continue
		}
		for _, o := range e.Origins {
			if !seen[o.KRI] {
				seen[o.KRI] = true
				routes = append(routes, o.KRI)
			}
		}
	}
	sort.Strings(routes)
	var out []Route
	for _, rk := range routes {
		id, err := s.types.parseKRI(rk)
		if err != nil {
			continue
		}
		r := Route{KRI: rk}
		for _, m := range matched {
			if isRouteKind(m.kind) {
				continue
			}
			if rule, ok := m.res.ToRules.ResourceRules[ruleKey(id)]; ok {
				r.Entries = append(r.Entries, Entry{Kind: m.kind, Conf: rule.Conf, Origins: s.viewOrigins(m.kind, "to", rule.Origins)})
			}
		}
		if len(r.Entries) > 0 {
			out = append(out, r)
		}
	}
	return out
}
