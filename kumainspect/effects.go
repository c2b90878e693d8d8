package kumainspect

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumarules"
)

// Effects is what the policies of one mesh do across its proxies: which proxies
// each policy selects, whether any field it sets survives the merge, where Kuma
// drops it. The cross-policy findings (MG450-MG453) are worded from it, in every
// door, so that "this policy has no effect" rests on the same matching and merging
// as `meshguard inspect`.
type Effects struct {
	// Proxies is how many Dataplanes were judged; Truncated says the mesh had more
	// than the limit, so a policy that seems to select nothing may select one of
	// the others.
	Proxies   int
	Truncated bool
	// Namespaces counts the judged proxies per Kubernetes namespace ("" for
	// Universal ones).
	Namespaces map[string]int
	store      *Store
	policies   map[string]*PolicyEffect
	// byKRI maps the KRI a view names a policy by to its store key.
	byKRIs map[string]string
	// decided are the origin lists decide has read (see decideOnce).
	decided map[decidedKey]bool
}

// PolicyEffect is what one policy does on the proxies judged.
type PolicyEffect struct {
	// Selects are the Dataplanes its top-level targetRef selects, by name.
	Selects []string
	// Merged says it is among the origins of some proxy's result.
	Merged bool
	// Decides says some field of a merged conf comes from it (last in merge order
	// to set it), or it contributes an inbound rule, which Kuma applies in order
	// rather than merging.
	Decides bool
	// OverriddenBy are the policies that decide the fields it sets, where it
	// decides none, by display name.
	OverriddenBy []string
	// FromIgnored are the inbounds on which Kuma ignores the policy's `from`
	// (a MeshTrafficPermission) because `rules` MeshTrafficPermissions select them.
	FromIgnored []Inbound
	// Hides are, for a `rules` MeshTrafficPermission, the inbounds on which it makes
	// Kuma ignore `from` MeshTrafficPermissions.
	Hides []Inbound
	// Unreached are the indexes of its `to` items that name an existing
	// MeshService, MeshExternalService or MeshMultiZoneService that none of the
	// proxies it selects can reach.
	Unreached  []int
	overriders map[string]bool
	reached    map[string]bool // destination KRIs (without section) its proxies reach
}

// Inbound is one inbound of a proxy, and the policies on the other side of a
// finding about it.
type Inbound struct {
	Dataplane string
	Port      int
	By        []string
}

// EffectsOptions bound what Effects judges.
type EffectsOptions struct {
	// Limit is how many Dataplanes are judged at most (in name order; 0 for
	// all); past it, Truncated.
	Limit int
	// Focus, when set, are the only policies the answer is asked about (an
	// admission request's object): only the Dataplanes one of them selects are
	// judged, the others are only counted.
	Focus []Object
}

// Effects judges the policies of mesh over its Dataplanes. A done ctx stops it
// early, as the limit does (Truncated).
func (s *Store) Effects(ctx context.Context, mesh string, o EffectsOptions) (*Effects, error) {
	e := &Effects{store: s, Namespaces: map[string]int{}, policies: map[string]*PolicyEffect{}, byKRIs: map[string]string{}, decided: map[decidedKey]bool{}}
	for _, o := range s.meshObjects(mesh) {
		e.byKRIs[s.types.kriString(kriOf(o.Meta, o.Type))] = storeKey(o.Type, o.Mesh, o.Name)
	}
	all := s.ofKind(api.KindDataplane, mesh)
	for _, dp := range all {
		e.Namespaces[dp.Labels[api.LabelNamespace]]++
	}
	e.Proxies = len(all)
	dps, err := s.focused(mesh, all, o.Focus)
	if err != nil {
		return nil, err
	}
	if o.Limit > 0 && len(dps) > o.Limit {
		dps, e.Truncated = dps[:o.Limit], true
	}
	for _, dp := range dps {
		if ctx.Err() != nil {
			e.Truncated = true
			break
		}
		v, err := s.View(mesh, dp.Name)
		if err != nil {
			return nil, err
		}
		e.judge(v)
		if err := e.judgeFrom(dp); err != nil {
			return nil, err
		}
	}
	e.finish()
	return e, nil
}

// focused are the Dataplanes of all that one of the focus policies selects (all
// of them without focus), as Kuma's _resources/dataplanes decides it.
func (s *Store) focused(mesh string, all []object, focus []Object) ([]object, error) {
	if len(focus) == 0 {
		return all, nil
	}
	var ps []kumarules.Policy
	for _, f := range focus {
		if p, found := s.findKey(storeKey(identity(f))); found {
			ps = append(ps, p.Policy)
		}
	}
	return s.focusedPolicies(mesh, all, ps)
}

// focusedPolicies are the Dataplanes of all that one of ps selects.
func (s *Store) focusedPolicies(mesh string, all []object, ps []kumarules.Policy) ([]object, error) {
	var targets []kumarules.Policy // what a top-level targetRef may name besides proxies
	for _, kind := range []string{string(api.RefMeshHTTPRoute), string(api.RefMeshGateway)} {
		for _, o := range s.ofKind(kind, mesh) {
			targets = append(targets, o.Policy)
		}
	}
	// One index over the policies asked about and the targets, for every proxy:
	// it matches a proxy against the few policies that can select it.
	x := s.eng.NewIndex(append(append([]kumarules.Policy(nil), ps...), targets...))
	var kinds []string
	for _, p := range ps {
		if !slices.Contains(kinds, p.Type) {
			kinds = append(kinds, p.Type)
		}
	}
	var out []object
	for _, dp := range all {
		for _, kind := range kinds {
			res, err := x.MatchedPolicies(kind, *dp.dp, kumarules.MatchOptions{SkipLegacyTo: true})
			if err != nil {
				return nil, err
			}
			if len(res.Policies) > 0 {
				out = append(out, dp)
				break
			}
		}
	}
	return out, nil
}

// Of is the effect of the input object in (nil when it selects no proxy and
// appears in no result).
func (e *Effects) Of(in Object) *PolicyEffect {
	typ, mesh, name := identity(in)
	return e.policies[storeKey(typ, mesh, name)]
}

func (e *Effects) policy(kri string) *PolicyEffect {
	p := e.policies[kri]
	if p == nil {
		p = &PolicyEffect{overriders: map[string]bool{}, reached: map[string]bool{}}
		e.policies[kri] = p
	}
	return p
}

// judge reads one proxy's view: who selects it, who decides each field.
func (e *Effects) judge(v View) {
	reached := make([]string, len(v.Outbounds))
	for i, out := range v.Outbounds {
		reached[i] = kriResource(out.KRI)
	}
	for _, m := range v.Selecting {
		p := e.policy(storeKey(m.Type, m.Mesh, m.Name))
		p.Selects = append(p.Selects, v.Dataplane)
		for _, r := range reached {
			p.reached[r] = true
		}
	}
	entries := append([]Entry(nil), v.Proxy...)
	for _, ports := range [][]Port{v.Inbounds, v.Outbounds} {
		for _, port := range ports {
			entries = append(entries, port.Entries...)
		}
	}
	for _, l := range v.Listeners { // a builtin gateway is configured listener by listener
		entries = append(entries, l.Inbound...)
		entries = append(entries, l.To...)
	}
	for _, en := range entries {
		if mergesByRule(en.Kind) {
			for _, o := range en.Origins {
				e.byKRI(o.KRI).Merged = true
				e.byKRI(o.KRI).Decides = true
			}
			continue
		}
		for _, r := range en.Rules {
			e.byKRI(r.Origin.KRI).Merged = true
			e.byKRI(r.Origin.KRI).Decides = true
		}
		if en.Rules == nil && en.Clients == nil {
			e.decideOnce(en.Conf, en.Origins)
		}
		for _, c := range en.Clients {
			e.decideOnce(c.Conf, c.Origins)
		}
	}
}

// mergesByRule reports whether a kind's conf is not a field-by-field merge the
// last setter decides: routes merge their rules by matches, a MeshProxyPatch
// appends its modifications.
func mergesByRule(kind string) bool {
	return kind == api.KindMeshHTTPRoute || kind == api.KindMeshTCPRoute || kind == api.KindMeshProxyPatch
}

// decideOnce is decide for a result the views share between proxies (the rules
// of one set of selecting policies are built once, and so are their origin
// lists): deciding is the same for each, so it is done once per list.
func (e *Effects) decideOnce(conf any, origins []Origin) {
	if len(origins) > 0 {
		k := decidedKey{&origins[0], len(origins)}
		if e.decided[k] {
			return
		}
		e.decided[k] = true
	}
	e.decide(conf, origins)
}

// decidedKey names an origins list a view shares, by its first element's
// address and its length.
type decidedKey struct {
	first *Origin
	n     int
}

// decide marks, for each field of a merged conf, the origin that sets it last as
// deciding and the earlier setters as overridden by it. Lists under append keys
// are concatenated: every setter contributes.
func (e *Effects) decide(conf any, origins []Origin) {
	for _, o := range origins {
		e.byKRI(o.KRI).Merged = true
	}
	if confs, isList := conf.([]any); isList { // a resource rule's conf: one per hostname
		for _, c := range confs {
			e.decide(c, origins)
		}
		return
	}
	for _, l := range Leaves(conf, "") {
		var setters []Origin
		for _, o := range origins {
			if Has(o.Conf, l.Path) {
				setters = append(setters, o)
			}
		}
		if len(setters) == 0 {
			continue
		}
		if appended(l.Path) {
			for _, o := range setters {
				e.byKRI(o.KRI).Decides = true
			}
			continue
		}
		last := setters[len(setters)-1]
		e.byKRI(last.KRI).Decides = true
		for _, o := range setters[:len(setters)-1] {
			if o.KRI != last.KRI {
				e.byKRI(o.KRI).overriders[last.KRI] = true
			}
		}
	}
}

func appended(path string) bool {
	for _, k := range strings.Split(path, ".") {
		if strings.HasPrefix(k, "append") {
			return true
		}
	}
	return false
}

// byKRI is the effect of the policy a view names by KRI.
func (e *Effects) byKRI(k string) *PolicyEffect {
	if key, ok := e.byKRIs[k]; ok {
		return e.policy(key)
	}
	return e.policy("?/" + k)
}

// kriResource is a destination KRI without its section (the port).
func kriResource(k string) string {
	if i := strings.LastIndex(k, "_"); i >= 0 {
		return k[:i+1]
	}
	return k
}

// judgeFrom finds the inbounds of dp where `rules` MeshTrafficPermissions make
// Kuma ignore the `from` ones (kumahq/kuma #18740: the plugin programs an
// inbound's `rules` result when it has one, its `from` rules only otherwise).
func (e *Effects) judgeFrom(dp object) error {
	res, err := e.store.matched(api.KindMeshTrafficPermission, *dp.dp, kumarules.MatchOptions{SkipLegacyTo: true})
	if err != nil {
		return err
	}
	for _, in := range dp.dp.Inbounds {
		fr := res.FromRules[kumarules.Listener(fmt.Sprintf("%s:%d", in.Address, in.Port))]
		if len(fr.InboundRules) == 0 || len(fr.Rules) == 0 {
			continue
		}
		var rulesBy, fromBy []string
		seen := map[string]bool{}
		for _, r := range fr.InboundRules {
			if k := storeKey(r.Origin.Type, r.Origin.Mesh, r.Origin.Name); !seen[k] {
				seen[k] = true
				rulesBy = append(rulesBy, r.Origin.DisplayName())
			}
		}
		var fromKeys []string
		for _, r := range fr.Rules {
			for _, o := range r.Origins {
				if k := storeKey(o.Type, o.Mesh, o.Name); !seen[k] {
					seen[k] = true
					fromBy = append(fromBy, o.DisplayName())
					fromKeys = append(fromKeys, k)
				}
			}
		}
		hid := map[string]bool{} // a policy with several rules on the inbound hides once
		for _, r := range fr.InboundRules {
			k := storeKey(r.Origin.Type, r.Origin.Mesh, r.Origin.Name)
			if !hid[k] {
				hid[k] = true
				p := e.policy(k)
				p.Hides = append(p.Hides, Inbound{Dataplane: dp.Name, Port: in.Port, By: fromBy})
			}
		}
		for _, k := range fromKeys {
			p := e.policy(k)
			p.FromIgnored = append(p.FromIgnored, Inbound{Dataplane: dp.Name, Port: in.Port, By: rulesBy})
		}
	}
	return nil
}

// finish sorts what was gathered and finds the `to` items no selecting proxy reaches.
func (e *Effects) finish() {
	for key, p := range e.policies {
		for k := range p.overriders {
			p.OverriddenBy = append(p.OverriddenBy, e.displayName(k))
		}
		sort.Strings(p.OverriddenBy)
		o, found := e.store.findKey(key)
		if !found || len(p.Selects) == 0 || e.Truncated {
			continue
		}
		for i, raw := range list(o.Spec["to"]) {
			item, _ := raw.(map[string]any)
			ref, _ := item["targetRef"].(map[string]any)
			dest, ok := e.store.destination(o, ref)
			if ok && !p.reached[e.store.types.kriString(dest)] {
				p.Unreached = append(p.Unreached, i)
			}
		}
	}
}

// destination is the resource a `to` targetRef of policy o names: a MeshService,
// MeshExternalService or MeshMultiZoneService by name (on Kubernetes in the ref's
// namespace, else the policy's), as its KRI without a section; ok is false for
// other refs and for a resource the store does not hold.
func (s *Store) destination(o object, ref map[string]any) (kri, bool) {
	kind, name := str(ref["kind"]), str(ref["name"])
	switch kind {
	case api.KindMeshService, api.KindMeshExternalService, api.KindMeshMultiZoneService:
	default:
		return kri{}, false
	}
	if name == "" {
		return kri{}, false
	}
	if ns := o.Labels[api.LabelNamespace]; ns != "" {
		if refNS := str(ref["namespace"]); refNS != "" {
			ns = refNS
		}
		name += "." + ns
	}
	d, found := s.find(kind, o.Mesh, name)
	if !found {
		return kri{}, false
	}
	return kriOf(d.Meta, kind), true
}

// displayName is the display name of the policy a view names by KRI (the name
// its author wrote, without the namespace Kuma's store adds).
func (e *Effects) displayName(k string) string {
	if id, err := e.store.types.parseKRI(k); err == nil {
		return id.Name
	}
	return k
}
