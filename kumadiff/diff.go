package kumadiff

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumainspect"
	"github.com/meshguard/meshguard/kumarules"
)

// What happened to a field between the two sets: the `change` of the JSON.
const (
	Changed = "changed"
	Added   = "added"
	Removed = "removed"
)

// Where in a proxy a change is: the `scope` of the JSON.
const (
	ScopeProxy    = "proxy"
	ScopeInbound  = "inbound"
	ScopeOutbound = "outbound"
	// ScopeRoute is a MeshHTTPRoute or MeshTCPRoute of an outbound that
	// policies target themselves (Target: the route's KRI).
	ScopeRoute = "route"
	// ScopeListener is a listener of a builtin gateway proxy (Target: its port
	// and hostname, "8080 api.example.com"): its inbound rules, and its to rules
	// by destination (Rule: "to" and the destination).
	ScopeListener = "listener"
)

// Report is what changes in the merged confs of the proxies of both sets
// (`meshguard diff -o json`, key `kumaConfig`; change it only compatibly).
type Report struct {
	// OldProxies and NewProxies count each set's proxies; Compared those of both
	// that were compared, Changed those of them with at least one change.
	OldProxies int `json:"oldProxies"`
	NewProxies int `json:"newProxies"`
	Compared   int `json:"compared"`
	Changed    int `json:"changed"`
	// Changes are the field changes, proxies that change alike grouped into one.
	Changes []Change `json:"changes"`
	// AddedProxies are in the new set only, RemovedProxies in the old only: their
	// conf is not compared (nothing to compare it with).
	AddedProxies   []string `json:"addedProxies"`
	RemovedProxies []string `json:"removedProxies"`
	// NotCompared are proxies whose conf could not be computed, with why.
	NotCompared []string `json:"notCompared"`
	// Limit says that proxies were left out past Options.MaxProxies; "" when none.
	Limit string `json:"limit,omitempty"`
}

// Change is one field of one policy kind's merged conf that changes the same
// way, decided by the same items, on every proxy of Proxies.
type Change struct {
	Mesh string `json:"mesh"`
	Kind string `json:"kind"`
	// Scope is proxy, inbound, outbound, route or listener; Target the
	// outbound's or route's KRI, the inbound's name (its port when unnamed) or the
	// listener's port and hostname; Where says it in words.
	Scope  string `json:"scope"`
	Target string `json:"target,omitempty"`
	Where  string `json:"where"`
	// Rule is, on an inbound, the rule ("when" and its match) or the group of
	// clients the field belongs to; "" for a rule that matches every request. On
	// a gateway listener's to rules, "to" and the destinations.
	Rule  string `json:"rule,omitempty"`
	Field string `json:"field"`
	// Change is changed, added or removed; Old and New the values (absent for
	// added and removed).
	Change string `json:"change"`
	Old    any    `json:"old,omitempty"`
	New    any    `json:"new,omitempty"`
	// Before and After are the policy items that set the field in each set (the
	// last that sets it in merge order).
	Before *access.Item `json:"before,omitempty"`
	After  *access.Item `json:"after,omitempty"`
	// Proxies are the proxies that change so ("namespace/name", or the name
	// outside Kubernetes), Namespaces their namespaces.
	Proxies    []string `json:"proxies"`
	Namespaces []string `json:"namespaces"`
}

// Options bound and shape the comparison.
type Options struct {
	// MaxProxies is the most proxies compared; 0 compares every one.
	MaxProxies int
	// SkipKinds are policy kinds left out (MeshTrafficPermission: the
	// authorization diff reports what it changes).
	SkipKinds []string
	// Select, when set, says which proxies to look at (the webhook: those the
	// admitted policy selects); the others are neither compared nor listed.
	Select func(kumarules.Dataplane) bool
}

// location is where a field is: one policy kind on one port (or the proxy) of a
// mesh, and on an inbound the rule.
type location struct {
	mesh, kind, scope, target, where, rule, field string
}

type groupKey struct {
	location
	change, old, new, before, after string
}

// Compare compares the proxies of two stores. Only proxies in both are compared
// field by field; the others are listed.
func Compare(old, now *kumainspect.Store, o Options) Report {
	r := Report{Changes: []Change{}, AddedProxies: []string{}, RemovedProxies: []string{}, NotCompared: []string{}}
	oldP, newP := proxies(old), proxies(now)
	r.OldProxies, r.NewProxies = len(oldP), len(newP)
	inOld := map[[2]string]kumarules.Dataplane{}
	for _, p := range oldP {
		inOld[[2]string{p.Mesh, p.Name}] = p
	}
	groups := map[groupKey]*Change{}
	var order []groupKey
	// Where only policies changed, the proxies no changed policy selects keep
	// their configuration: they are counted as compared, not computed.
	affected, kinds, narrowed := kumainspect.AffectedKinds(old, now)
	// The proxies to compare are computed a batch at a time, each store's
	// views on its own goroutine, and compared in order; where only policies
	// changed, only their kinds, the others being the same on both sides.
	if !narrowed {
		kinds = nil
	}
	var queue []kumarules.Dataplane
	flush := func() {
		for i, b := range bothFieldsBatch(old, now, queue, o.SkipKinds, kinds) {
			p := queue[i]
			if b.err != nil {
				r.NotCompared = append(r.NotCompared, fmt.Sprintf("%s: %v", proxyName(p), b.err))
				continue
			}
			r.Compared++
			if compareFields(b.before, b.after, proxyName(p), p.Namespace, groups, &order) {
				r.Changed++
			}
		}
		queue = queue[:0]
	}
	for _, p := range newP {
		key := [2]string{p.Mesh, p.Name}
		if o.Select != nil && !o.Select(p) {
			delete(inOld, key)
			continue
		}
		if _, both := inOld[key]; !both {
			r.AddedProxies = append(r.AddedProxies, proxyName(p))
			continue
		}
		delete(inOld, key)
		if narrowed && !affected[key] {
			r.Compared++
			continue
		}
		if o.MaxProxies > 0 && r.Compared >= o.MaxProxies {
			r.Limit = fmt.Sprintf("only the first %d proxies present in both sets were compared", o.MaxProxies)
			continue
		}
		queue = append(queue, p)
		// Under MaxProxies whether the next proxy is compared depends on this
		// one's answer: one at a time.
		if len(queue) == fieldsBatch || o.MaxProxies > 0 {
			flush()
		}
	}
	flush()
	for _, p := range inOld {
		if o.Select != nil && !o.Select(p) {
			continue
		}
		r.RemovedProxies = append(r.RemovedProxies, proxyName(p))
	}
	sort.Strings(r.RemovedProxies)
	for _, k := range order {
		r.Changes = append(r.Changes, *groups[k])
	}
	sortChanges(r.Changes)
	return r
}

// proxyName is how a report names a proxy: namespace/name on Kubernetes.
func proxyName(p kumarules.Dataplane) string {
	if p.Namespace != "" {
		return p.Namespace + "/" + p.DisplayName()
	}
	return p.Name
}

// proxies are the store's proxies (its Dataplanes, with those it derives from
// workloads), by mesh and name: the one place Compare learns which proxies
// there are.
func proxies(s *kumainspect.Store) []kumarules.Dataplane {
	out := s.Dataplanes()
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Mesh != out[j].Mesh {
			return out[i].Mesh < out[j].Mesh
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// view is the View of one proxy, of the policy kinds in only (nil: every kind).
// It is the one place that computes a proxy's View, so a Store method that
// computes every proxy's at once can replace it.
func view(s *kumainspect.Store, p kumarules.Dataplane, only map[string]bool) (kumainspect.View, error) {
	return s.ViewKinds(p.Mesh, p.Name, only)
}

// fieldsBatch is how many proxies bothFieldsBatch computes at once: enough that
// the two goroutines meet rarely, few enough that the fields held stay small.
const fieldsBatch = 64

// proxyFields are what each store gives one proxy, or why not.
type proxyFields struct {
	before, after map[location]field
	err           error
}

// bothFieldsBatch computes what each store gives each proxy of ps (of the
// policy kinds in only, nil: every kind), the old store's on another goroutine
// (each Store is used by one goroutine at a time).
func bothFieldsBatch(old, now *kumainspect.Store, ps []kumarules.Dataplane, skip []string, only map[string]bool) []proxyFields {
	out := make([]proxyFields, len(ps))
	if len(ps) == 0 {
		return out
	}
	oldErrs := make([]error, len(ps))
	var wg sync.WaitGroup
	wg.Go(func() {
		for i, p := range ps {
			out[i].before, oldErrs[i] = fields(old, p, skip, only)
		}
	})
	newErrs := make([]error, len(ps))
	for i, p := range ps {
		out[i].after, newErrs[i] = fields(now, p, skip, only)
	}
	wg.Wait()
	for i := range out {
		switch {
		case oldErrs[i] != nil:
			out[i] = proxyFields{err: fmt.Errorf("old set: %w", oldErrs[i])}
		case newErrs[i] != nil:
			out[i] = proxyFields{err: fmt.Errorf("new set: %w", newErrs[i])}
		}
	}
	return out
}

// fields flattens what the store gives one proxy into its fields by location,
// of the policy kinds in only (nil: every kind).
func fields(s *kumainspect.Store, p kumarules.Dataplane, skip []string, only map[string]bool) (map[location]field, error) {
	v, err := view(s, p, only)
	if err != nil {
		return nil, err
	}
	out := map[location]field{}
	add := func(at location, e kumainspect.Entry) {
		if slices.Contains(skip, e.Kind) {
			return
		}
		at.kind = e.Kind
		entryFields(at, e, out)
	}
	for _, e := range v.Proxy {
		add(location{mesh: p.Mesh, scope: ScopeProxy, where: "the proxy"}, e)
	}
	for _, port := range v.Inbounds {
		target := port.Name
		if target == "" {
			target = fmt.Sprint(port.Port)
		}
		for _, e := range port.Entries {
			add(location{mesh: p.Mesh, scope: ScopeInbound, target: target, where: inboundWords(port)}, e)
		}
	}
	for _, port := range v.Outbounds {
		for _, e := range port.Entries {
			add(location{mesh: p.Mesh, scope: ScopeOutbound, target: port.KRI, where: outboundWords(port)}, e)
		}
		for _, r := range port.Routes {
			for _, e := range r.Entries {
				add(location{mesh: p.Mesh, scope: ScopeRoute, target: r.KRI, where: routeWords(r, port)}, e)
			}
		}
	}
	for _, l := range v.Listeners {
		at := location{mesh: p.Mesh, scope: ScopeListener, target: fmt.Sprintf("%d %s", l.Port, l.Hostname), where: listenerWords(l)}
		for _, e := range l.Inbound {
			add(at, e)
		}
		for _, e := range l.To {
			to := at
			to.rule = "to " + e.To
			add(to, e)
		}
	}
	return out, nil
}

// listenerWords names a builtin gateway's listener:
// "the gateway listener on port 8080 (HTTP, hostname api.example.com)".
func listenerWords(l kumainspect.GatewayListener) string {
	return fmt.Sprintf("the gateway listener on port %d (%s, hostname %s)", l.Port, l.Protocol, l.Hostname)
}

// entryFields adds one kind's result on a port: its merged conf, or an inbound's
// rules (by match) or groups of clients, each after at's rule where it has one
// (a gateway listener's destinations).
func entryFields(at location, e kumainspect.Entry, out map[location]field) {
	put := func(rule string, conf any, origins []kumainspect.Origin) {
		m := map[string]field{}
		confFields(e.Kind, conf, origins, m, "")
		if at.rule != "" {
			rule = strings.TrimSpace(at.rule + " " + rule)
		}
		for path, f := range m {
			l := at
			l.rule, l.field = rule, path
			out[l] = f
		}
	}
	switch {
	case len(e.Rules) > 0:
		seen := map[string]int{}
		for _, r := range e.Rules {
			rule := ""
			if r.Match != nil {
				rule = "when " + kumainspect.Inline(r.Match)
			}
			if seen[rule]++; seen[rule] > 1 {
				rule = fmt.Sprintf("%s (rule %d of that match)", rule, seen[rule])
			}
			put(strings.TrimSpace(rule), r.Conf, []kumainspect.Origin{r.Origin})
		}
	case len(e.Clients) > 0:
		for _, c := range e.Clients {
			put("clients "+c.Subset, c.Conf, c.Origins)
		}
	default:
		put("", e.Conf, e.Origins)
	}
}

// compareFields adds the proxy's changes to their groups; it reports whether
// any field changed.
func compareFields(before, after map[location]field, proxy, namespace string, groups map[groupKey]*Change, order *[]groupKey) bool {
	changed := false
	visit := func(at location, b, a field, bok, aok bool) {
		k := groupKey{location: at}
		switch {
		case bok && aok && same(b.value, a.value):
			return
		case bok && aok:
			k.change, k.old, k.new = Changed, kumainspect.Inline(b.value), kumainspect.Inline(a.value)
		case aok:
			k.change, k.new = Added, kumainspect.Inline(a.value)
		default:
			k.change, k.old = Removed, kumainspect.Inline(b.value)
		}
		k.before, k.after = itemKey(b.by), itemKey(a.by)
		changed = true
		g, seen := groups[k]
		if !seen {
			g = &Change{Mesh: at.mesh, Kind: at.kind, Scope: at.scope, Target: at.target, Where: at.where, Rule: at.rule,
				Field: at.field, Change: k.change, Before: b.by, After: a.by, Proxies: []string{}, Namespaces: []string{}}
			if bok {
				g.Old = b.value
			}
			if aok {
				g.New = a.value
			}
			groups[k] = g
			*order = append(*order, k)
		}
		g.Proxies = append(g.Proxies, proxy)
		if namespace != "" && !slices.Contains(g.Namespaces, namespace) {
			g.Namespaces = append(g.Namespaces, namespace)
		}
	}
	for at, b := range before {
		a, aok := after[at]
		visit(at, b, a, true, aok)
	}
	for at, a := range after {
		if _, bok := before[at]; !bok {
			visit(at, field{}, a, false, true)
		}
	}
	return changed
}

func itemKey(i *access.Item) string {
	if i == nil {
		return ""
	}
	return i.Kind + " " + i.Policy + " " + i.Path
}

// scopeRank orders scopes as a proxy's view lists them: the whole proxy, its
// inbounds, outbounds and their routes, then a gateway's listeners.
func scopeRank(scope string) int {
	switch scope {
	case ScopeProxy:
		return 0
	case ScopeInbound:
		return 1
	case ScopeOutbound:
		return 2
	case ScopeRoute:
		return 3
	}
	return 4
}

// sortChanges orders changes by mesh, kind, scope, place, rule and field, and
// sorts each one's proxies and namespaces.
func sortChanges(cs []Change) {
	for i := range cs {
		sort.Strings(cs[i].Proxies)
		sort.Strings(cs[i].Namespaces)
	}
	key := func(c Change) []string {
		return []string{c.Mesh, c.Kind, fmt.Sprint(scopeRank(c.Scope)), c.Where, c.Target, c.Rule, c.Field, c.Change,
			kumainspect.Inline(c.Old), kumainspect.Inline(c.New), itemKey(c.Before), itemKey(c.After), strings.Join(c.Proxies, ",")}
	}
	sort.SliceStable(cs, func(i, j int) bool { return slices.Compare(key(cs[i]), key(cs[j])) < 0 })
}

// inboundWords names an inbound: "inbound http (port 8080)".
func inboundWords(p kumainspect.Port) string {
	if p.Name == "" {
		return fmt.Sprintf("the inbound on port %d", p.Port)
	}
	return fmt.Sprintf("the inbound %s (port %d)", p.Name, p.Port)
}

// routeWords names a route of an outbound by its KRI's name:
// "the route shop/to-backend of the outbound to MeshService backend".
func routeWords(r kumainspect.Route, p kumainspect.Port) string {
	name := r.KRI
	if parts, ok := kriParts(r.KRI); ok {
		name = kriName(parts)
	}
	return "the route " + name + " of " + outboundWords(p)
}

// kriParts splits a KRI (kri_<type>_<mesh>_<zone>_<namespace>_<name>_<section>)
// into its seven parts; ok is false for anything else.
func kriParts(k string) ([]string, bool) {
	parts := strings.Split(k, "_")
	return parts, len(parts) == 7 && parts[0] == "kri"
}

// kriName is a split KRI's object as "namespace/name", or the name alone.
func kriName(parts []string) string {
	if parts[4] != "" {
		return parts[4] + "/" + parts[5]
	}
	return parts[5]
}

// outboundWords names an outbound by its destination, read from its KRI.
func outboundWords(p kumainspect.Port) string {
	parts, ok := kriParts(p.KRI)
	if !ok {
		return "the outbound " + p.KRI
	}
	kind := map[string]string{"msvc": api.KindMeshService, "extsvc": api.KindMeshExternalService, "mzsvc": api.KindMeshMultiZoneService}[parts[1]]
	if kind == "" {
		kind = parts[1]
	}
	out := "the outbound to " + kind + " " + kriName(parts)
	if parts[3] != "" {
		out += " of zone " + parts[3]
	}
	if parts[6] != "" {
		out += " port " + parts[6]
	}
	return out
}
