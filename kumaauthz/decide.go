package kumaauthz

import (
	"fmt"
	"sort"
	"strings"

	xdsmatcher "github.com/cncf/xds/go/xds/type/matcher/v3"
	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/config/rbac/v3"
	httprbac "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/rbac/v3"
	netrbac "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/rbac/v3"

	"github.com/meshguard/meshguard/api"
)

// This file answers `meshguard check` for Kuma: which MeshTrafficPermissions
// configure one destination proxy, the Envoy RBAC they compile to (built by the
// same functions a preview uses), and what that RBAC decides for one call, read
// back by the evaluator of evaluate.go, with the item that decides it.

// Proxy is the destination of a check: one data plane proxy's inbound, described
// the way policies select it.
type Proxy struct {
	Mesh string
	// Namespace is the workload's namespace (k8s.kuma.io/namespace); empty on
	// Universal.
	Namespace string
	// Zone is the proxy's zone, for zone-originated namespaced policies.
	Zone string
	// Name is the Dataplane's name, for targetRef Dataplane by name.
	Name string
	// Section is the inbound's name (or port), for targetRef sectionName.
	Section string
	// Tags are the inbound's tags and the Dataplane's labels (kuma.io/service
	// among them): what MeshService, MeshSubset and Dataplane labels select.
	Tags map[string]string
	// Labels are the Dataplane's own labels as Kuma computes them (no inbound
	// tags), which a MeshIdentity selects by; nil when only Tags are known.
	Labels map[string]string
}

// Target is the proxy as a group of one: a Dataplane target carrying every tag,
// label, name and section, so Applies says whether a policy selects it.
func (p Proxy) Target() Target {
	tags := make(map[string]string, len(p.Tags)+2)
	for k, v := range p.Tags {
		tags[k] = v
	}
	if p.Namespace != "" {
		if _, ok := tags[api.LabelNamespace]; !ok {
			tags[api.LabelNamespace] = p.Namespace
		}
	}
	if p.Zone != "" {
		if _, ok := tags[api.ZoneTag]; !ok {
			tags[api.ZoneTag] = p.Zone
		}
	}
	return Target{Kind: api.RefDataplane, Name: p.Name, SectionName: p.Section, Tags: tags,
		Namespace: p.Namespace, Zone: p.Zone, Mesh: p.Mesh}
}

// Selection is what configures one proxy's inbound.
type Selection struct {
	// Policies select the proxy, in merge order (least specific first).
	Policies []Policy
	// Notes name the policies of the proxy's mesh left out and why: route-level
	// policies (their own RBAC filter) and policies of another inbound.
	Notes []string
}

// SelectPolicies finds the policies that configure the proxy's inbound, sorted in
// Kuma's merge order. It scans ps once: Applies against the proxy.
func SelectPolicies(ps []Policy, px Proxy, systemNamespace string) Selection {
	if systemNamespace == "" {
		systemNamespace = "kuma-system"
	}
	g := px.Target()
	var sel Selection
	for _, p := range ps {
		selected, why := relevance(p, px, g, systemNamespace)
		if selected {
			sel.Policies = append(sel.Policies, p)
		} else if why != "" {
			sel.Notes = append(sel.Notes, why)
		}
	}
	SortPolicies(sel.Policies, systemNamespace)
	return sel
}

// Relevant reports whether SelectPolicies would select p for the proxy or say
// something about it, so that a caller holding many policies can validate only
// those.
func Relevant(p Policy, px Proxy, systemNamespace string) bool {
	if systemNamespace == "" {
		systemNamespace = "kuma-system"
	}
	selected, why := relevance(p, px, px.Target(), systemNamespace)
	return selected || why != ""
}

// relevance says whether p configures the proxy whose target is g, and if not,
// why it is worth a note: a route-level policy of its mesh, or a policy of one
// inbound when no inbound was asked for.
func relevance(p Policy, px Proxy, g Target, systemNamespace string) (bool, string) {
	if p.Mesh != px.Mesh {
		return false, ""
	}
	return relevanceOf(p, TargetOf(p, systemNamespace), px, g)
}

// relevanceOf is relevance for a policy of the proxy's mesh whose target pt
// is derived already.
func relevanceOf(p Policy, pt Target, px Proxy, g Target) (bool, string) {
	if p.Mesh != px.Mesh {
		return false, ""
	}
	if pt.Route() {
		return false, fmt.Sprintf("%s targets %s %s: its route-level RBAC filter is not evaluated here", p.Ref(), pt.Kind, pt.Name)
	}
	if Applies(pt, g) {
		return true, ""
	}
	if pt.Kind == api.RefDataplane && pt.SectionName != "" && px.Section == "" {
		noSection := pt
		noSection.SectionName = ""
		if Applies(noSection, g) {
			return false, fmt.Sprintf("%s applies to inbound %q only; give --section to check that inbound", p.Ref(), pt.SectionName)
		}
	}
	return false, ""
}

// Decider is the element of the merged list that decides a call: a `from` item
// (Path spec.from[i], Action its action) or a SPIFFE matcher (Path
// spec.rules[i].default.deny[j], List its list); Policy is DefaultActionName when
// nothing matched.
type Decider struct {
	Policy string `json:"policy"`
	Path   string `json:"path,omitempty"`
	// Action is the `from` item's action as written, or the matcher's list.
	Action string `json:"action"`
	// Match says what the item matches, in words.
	Match string `json:"match,omitempty"`
}

// Verdict is one decision (enforced or shadow) with what decides it.
type Verdict struct {
	Allow   bool    `json:"allow"`
	Decider Decider `json:"decidedBy"`
	// Filter is the Envoy filter that decided: network (envoy.filters.network.rbac)
	// or http (envoy.filters.http.rbac).
	Filter string `json:"filter"`
}

// Decision is what the proxy's RBAC decides for one call.
type Decision struct {
	Enforced Verdict
	// Shadow is the shadow decision (shadow_rules, shadow_matcher) when the RBAC has
	// one; nil otherwise.
	Shadow *Verdict
	// Default is set when no policy selects the proxy: Kuma's default decides.
	Default bool
	// Identity is the MeshIdentity that gives the proxy its identity (Ref), when
	// one does: only `rules` policies are programmed then.
	Identity string
	// Policies are the merged policies' Refs in merge order.
	Policies []string
	// Form is how the RBAC is written (compact, expanded or matcher).
	Form Form
	// RBAC and HTTPRBAC are the compiled filters the decision was read from.
	RBAC     *netrbac.RBAC
	HTTPRBAC *httprbac.RBAC
	Notes    []string
}

// DefaultWithoutPolicy says what Kuma 2.14 does for a proxy no
// MeshTrafficPermission selects: with mTLS on (or a MeshIdentity), its inbound
// gets a deny-all RBAC unless a legacy TrafficPermission exists (kuma-cp creates
// the "allow-all-<mesh>" TrafficPermission only with
// KUMA_DEFAULTS_CREATE_MESH_ROUTING_RESOURCES, off by default); with mTLS off no
// RBAC is programmed at all and everyone is let in.
const DefaultWithoutPolicy = "DENY: Kuma denies every client of a proxy no MeshTrafficPermission selects when the mesh has mTLS " +
	"(with mTLS off no RBAC is programmed and every call is allowed; a legacy TrafficPermission, such as the allow-all one " +
	"kuma-cp creates with defaults.createMeshRoutingResources, would decide instead)"

// Decide compiles the policies selected for a proxy of mesh (in merge order) as a
// preview does and evaluates the resulting Envoy RBAC for req. The network filter
// decides first; when it admits the call and an HTTP filter exists (SPIFFE
// matchers with method/path), the HTTP filter decides.
func Decide(sorted []Policy, mesh string, req Request, opts Options) (Decision, error) {
	return DecideFor(sorted, mesh, nil, req, opts)
}

// DecideFor is Decide for a proxy to which Kuma gives the MeshIdentity id (nil:
// none, or one that is not Ready). With an identity only `rules` policies are
// programmed: `from` policies are left out with a note, and with no `rules`
// policy the RBAC matcher has no entry and denies every client.
func DecideFor(sorted []Policy, mesh string, id *Identity, req Request, opts Options) (Decision, error) {
	opts = opts.withDefaults()
	d := Decision{Policies: make([]string, len(sorted))}
	for i, p := range sorted {
		d.Policies[i] = p.Ref()
	}
	if id != nil && id.Ready() {
		d.Identity = id.Ref()
		kept, notes := identityPolicies(sorted, id)
		d.Notes = append(d.Notes, notes...)
		if len(kept) == 0 {
			d.Form = FormMatcher
			d.Enforced = Verdict{Filter: "network", Decider: Decider{Policy: DefaultActionName, Action: "DENY",
				Match: api.KindMeshIdentity + " " + id.Ref() + " selects the proxy, so only `rules` MeshTrafficPermissions are programmed on its inbounds (`from` policies are not); " +
					"none selects it, so its RBAC matcher has no entry and denies every client"}}
			return d, nil
		}
		return decideMatchers(d, kept, req, opts)
	}
	if len(sorted) == 0 {
		d.Default = true
		d.Enforced = Verdict{Filter: "none", Decider: Decider{Policy: DefaultActionName, Action: "DENY", Match: "no policy selects it: default is " + DefaultWithoutPolicy}}
		return d, nil
	}
	if usesMatchers(sorted) {
		return decideMatchers(d, sorted, req, opts)
	}
	return decideFrom(d, sorted, mesh, req, opts)
}

// decideFrom evaluates the rules/shadow_rules of `from` policies; the deciding
// item is the last one whose principal (its atoms, as compiled) matches the peer.
func decideFrom(d Decision, sorted []Policy, mesh string, req Request, opts Options) (Decision, error) {
	items := mergeFrom(sorted, d.Policies)
	cs, err := toItems(items, mesh)
	if err != nil {
		return d, err
	}
	res, err := compileItems(cs, opts)
	if err != nil {
		return d, err
	}
	d.Form, d.RBAC = res.Form, res.Config
	d.Notes = append(d.Notes, res.Warnings...)
	if req.SNI != "" || req.Method != "" || req.Path != "" {
		d.Notes = append(d.Notes, "sni, method and path do not matter here: `from` policies compile to network RBAC rules, which only read the client certificate")
	}
	allow, _, err := EvalRBAC(res.Config.GetRules(), req.SANs)
	if err != nil {
		return d, err
	}
	shadowAllow := allow
	if res.Config.GetShadowRules() != nil {
		if shadowAllow, _, err = EvalRBAC(res.Config.GetShadowRules(), req.SANs); err != nil {
			return d, err
		}
	}
	dec := Decider{Policy: DefaultActionName, Action: "DENY", Match: "no item of the merged list matches this client"}
	l := newItemLeaves(cs)
	var action *Action
	for i := len(cs) - 1; i >= 0; i-- {
		ok, err := EvalPrincipal(l.matchOf(i), req.SANs)
		if err != nil {
			return d, err
		}
		if ok {
			it := items[i]
			dec = Decider{Policy: it.Policy, Path: it.Path(), Action: it.From.Default.Action, Match: clientWords(it.From.TargetRef, mesh)}
			action = &cs[i].action
			break
		}
	}
	// The RBAC and the list must agree: this is the property the tests prove,
	// checked again on every answer.
	if (action == nil && (allow || shadowAllow)) || (action != nil && (action.Allows() != allow || action.ShadowAllows() != shadowAllow)) {
		return d, fmt.Errorf("internal error: the compiled RBAC (allow=%v, shadow allow=%v) disagrees with the deciding item %s %s", allow, shadowAllow, dec.Policy, dec.Path)
	}
	d.Enforced = Verdict{Allow: allow, Decider: dec, Filter: "network"}
	if res.Config.GetShadowRules() != nil {
		d.Shadow = &Verdict{Allow: shadowAllow, Decider: dec, Filter: "network"}
	}
	return d, nil
}

// decideMatchers evaluates the matcher and shadow_matcher trees of SPIFFE-matcher
// policies: the network filter first, then the HTTP filter when there is one.
func decideMatchers(d Decision, sorted []Policy, req Request, opts Options) (Decision, error) {
	var entries []SpiffeEntry
	for _, p := range sorted {
		if !p.IsRulesForm() {
			if len(p.Spec.From) > 0 {
				d.Notes = append(d.Notes, fmt.Sprintf("%s uses `from`, which is ignored: SPIFFE-matcher policies select this proxy too and Envoy ignores rules when a matcher is set", p.Ref()))
			}
			continue
		}
		entries = append(entries, SpiffeEntries(p)...)
	}
	res, err := CompileMatchers(entries, opts.StatPrefix)
	if err != nil {
		return d, err
	}
	d.Form, d.RBAC, d.HTTPRBAC = FormMatcher, res.Config, res.HTTP
	d.Notes = append(d.Notes, res.Warnings...)
	l4 := req
	l4.HTTP = false
	if res.HTTP != nil {
		if req.Method == "" {
			req.Method = "GET"
			d.Notes = append(d.Notes, "some matcher has method/path conditions; no --method given, GET assumed")
		}
		if req.Path == "" {
			req.Path = "/"
			d.Notes = append(d.Notes, "some matcher has method/path conditions; no --path given, / assumed")
		}
	} else if req.Method != "" || req.Path != "" {
		d.Notes = append(d.Notes, "method and path do not matter here: no matcher of this proxy has method/path conditions")
	}
	req.HTTP = true
	verdict := func(shadow bool) (Verdict, error) {
		v, err := walk(entries, res.Config.GetMatcher(), res.Config.GetShadowMatcher(), shadow, l4, "network")
		if err != nil || !v.Allow || res.HTTP == nil {
			return v, err
		}
		return walk(entries, res.HTTP.GetMatcher(), res.HTTP.GetShadowMatcher(), shadow, req, "http")
	}
	if d.Enforced, err = verdict(false); err != nil {
		return d, err
	}
	sh, err := verdict(true)
	if err != nil {
		return d, err
	}
	d.Shadow = &sh
	return d, nil
}

// walk evaluates one tree (the enforced or shadow one) and finds the entry behind
// the action it ends in.
func walk(entries []SpiffeEntry, enforced, shadowTree *xdsmatcher.Matcher, shadow bool, req Request, filter string) (Verdict, error) {
	tree := enforced
	if shadow {
		tree = shadowTree
	}
	act, name, err := EvalMatcher(tree, req)
	if err != nil {
		return Verdict{}, fmt.Errorf("%s filter: %v", filter, err)
	}
	v := Verdict{Allow: act == rbacv3.RBAC_ALLOW, Filter: filter}
	if name == DefaultActionName || name == "" {
		v.Decider = Decider{Policy: DefaultActionName, Action: "DENY", Match: "no matcher matches: the tree's on_no_match denies"}
		return v, nil
	}
	denying := act == rbacv3.RBAC_DENY
	for _, e := range entries {
		if strings.ToValidUTF8(e.Policy, "\uFFFD") != name {
			continue
		}
		isDeny := e.List == ListDeny || (shadow && e.List == ListAllowWithShadowDeny)
		if isDeny != denying || e.empty() || (!req.HTTP && e.http() && denying) {
			continue
		}
		p, err := predicate(e, req.HTTP)
		if err != nil {
			return v, err
		}
		ok, err := EvalPredicate(p, req)
		if err != nil {
			return v, err
		}
		if ok {
			v.Decider = Decider{Policy: e.Policy, Path: e.Path, Action: e.List, Match: MatcherWords(e.Match)}
			return v, nil
		}
	}
	return v, fmt.Errorf("internal error: %s filter decided %v by %q but no matcher of that policy matches", filter, act, name)
}

// MatcherWords says what a SPIFFE matcher matches: "spiffeID Prefix
// spiffe://td/ns/a, method GET".
func MatcherWords(m api.SpiffeMatch) string {
	var parts []string
	if sm, key := m.Spiffe(); sm != nil {
		parts = append(parts, fmt.Sprintf("%s %s %s", key, orExact(sm.Type), sm.Value))
	}
	if m.SNI != nil {
		parts = append(parts, fmt.Sprintf("sni %s %s", orExact(m.SNI.Type), m.SNI.Value))
	}
	if m.Method != "" {
		parts = append(parts, "method "+m.Method)
	}
	if m.Path != nil {
		parts = append(parts, fmt.Sprintf("path %s %s", orExact(m.Path.Type), m.Path.Value))
	}
	if len(parts) == 0 {
		return "nothing (an empty matcher)"
	}
	return strings.Join(parts, ", ")
}

func orExact(t string) string {
	if t == "" {
		return "Exact"
	}
	return t
}

// ClientSANs are the URI SANs Kuma's mesh CA puts in a proxy's certificate
// (the MeshTrafficPermission MADR): spiffe://<mesh>/<kuma.io/service> and
// kuma://<tag>/<value> for every other tag, sorted.
func ClientSANs(mesh string, tags map[string]string) []string {
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		if k == api.ServiceTag {
			out = append(out, "spiffe://"+mesh+"/"+tags[k])
			continue
		}
		out = append(out, "kuma://"+k+"/"+tags[k])
	}
	return out
}
