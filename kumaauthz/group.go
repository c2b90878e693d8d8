package kumaauthz

import (
	"cmp"
	"slices"
	"strings"

	"github.com/meshguard/meshguard/api"
)

// Target is a group of proxies (or, for route kinds, a route) that policies select:
// the top-level targetRef of some policy plus the implicit scope Kuma adds.
type Target struct {
	Kind api.RefKind `json:"kind"`
	Name string      `json:"name,omitempty"`
	// Tags are the targetRef's tags (MeshSubset, MeshServiceSubset) or labels
	// (Dataplane).
	Tags        map[string]string `json:"tags,omitempty"`
	SectionName string            `json:"sectionName,omitempty"`
	// Namespace limits the group to proxies of one namespace: the policy's own for a
	// namespaced (workload-owner, consumer) policy, or targetRef.namespace.
	Namespace string `json:"namespace,omitempty"`
	// Zone limits the group to one zone (zone-originated namespaced policies).
	Zone string `json:"zone,omitempty"`
	Mesh string `json:"mesh"`
}

// Route reports whether the target is a route, which gets its own RBAC filter.
func (t Target) Route() bool { return IsRouteRef(api.TargetRef{Kind: t.Kind}) }

// key identifies a target for grouping.
func (t Target) key() string {
	fields := [...]string{t.Mesh, string(t.Kind), t.Name, t.SectionName, t.Namespace, t.Zone}
	tags := ""
	if len(t.Tags) > 0 {
		tags = tagString(t.Tags)
	}
	n := len(fields) + len(tags)
	for _, s := range fields {
		n += len(s)
	}
	var b strings.Builder
	b.Grow(n)
	for _, s := range fields {
		b.WriteString(s)
		b.WriteByte(0)
	}
	b.WriteString(tags)
	return b.String()
}

// TargetOf is the group of proxies a policy selects. Namespaced workload-owner and
// consumer policies only select proxies of their own namespace (and zone, when
// zone-originated), as the policy-on-namespace MADR's implicit k8s.kuma.io/namespace tag says.
func TargetOf(p Policy, systemNamespace string) Target {
	ref := p.TopRef()
	t := Target{Kind: ref.Kind, Name: ref.Name, SectionName: ref.SectionName, Namespace: ref.Namespace, Mesh: p.Mesh}
	switch ref.Kind {
	case api.RefDataplane:
		t.Tags = copyTags(ref.Labels)
	case api.RefMeshSubset, api.RefMeshServiceSubset:
		t.Tags = copyTags(ref.Tags)
	}
	if r := p.EffectiveRole(systemNamespace); (r == api.RoleWorkloadOwner || r == api.RoleConsumer) && p.Namespace != systemNamespace {
		t.Namespace = p.Namespace
		if p.Origin == api.OriginZone {
			t.Zone = p.Zone
		}
	}
	return t
}

func copyTags(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Applies reports whether a policy whose target is pt configures the proxies of
// group g: same mesh, same level (proxy or route), pt's namespace and zone scope
// contain g's, and pt's selector is contained in g's (Mesh selects everything).
func Applies(pt, g Target) bool { return appliesKeyed(pt, g, "", "") }

// appliesKeyed is Applies with the targets' keys already computed (both "":
// compute them when needed).
func appliesKeyed(pt, g Target, ptKey, gKey string) bool {
	if pt.Mesh != g.Mesh || pt.Route() != g.Route() {
		return false
	}
	if pt.Route() || !selectsProxies(pt.Kind) {
		// Routes, and kinds MTP does not select proxies by (e.g. MeshGateway), only
		// apply to their own target.
		if ptKey == "" && gKey == "" {
			ptKey, gKey = pt.key(), g.key()
		}
		return ptKey == gKey
	}
	if pt.Namespace != "" && pt.Namespace != g.Namespace {
		return false
	}
	if pt.Zone != "" && pt.Zone != g.Zone {
		return false
	}
	if !selectsProxies(g.Kind) {
		return pt.Kind == api.RefMesh || pt.Kind == "" // only "everything" contains them
	}
	return selectorContains(g, pt)
}

// Keys of the selector entries a Dataplane by name (and section) adds.
const (
	selDataplane = "\x00dataplane"
	selSection   = "\x00section"
)

// selectorContains reports whether every entry of pt.selector() is in g.selector()
// with the same value, without building either map: Applies runs for many pairs of
// targets on every preview.
func selectorContains(g, pt Target) bool {
	has := func(k, v string) bool {
		w, ok := selectorGet(g, k)
		return ok && w == v
	}
	switch pt.Kind {
	case api.RefMeshService:
		return has(api.ServiceTag, pt.Name)
	case api.RefMeshServiceSubset:
		for k, v := range pt.Tags {
			if k != api.ServiceTag && !has(k, v) { // the name wins, as in TagView
				return false
			}
		}
		return has(api.ServiceTag, pt.Name)
	case api.RefMeshSubset:
		for k, v := range pt.Tags {
			if !has(k, v) {
				return false
			}
		}
	case api.RefDataplane:
		for k, v := range pt.Tags {
			if (k == selDataplane && pt.Name != "") || (k == selSection && pt.SectionName != "") {
				continue // overwritten below, as in selector
			}
			if !has(k, v) {
				return false
			}
		}
		if pt.Name != "" && !has(selDataplane, pt.Name) {
			return false
		}
		if pt.SectionName != "" && !has(selSection, pt.SectionName) {
			return false
		}
	}
	return true
}

// selectorGet is t.selector()[k], without building the map.
func selectorGet(t Target, k string) (string, bool) {
	switch t.Kind {
	case api.RefMeshService:
		if k == api.ServiceTag {
			return t.Name, true
		}
	case api.RefMeshServiceSubset:
		if k == api.ServiceTag {
			return t.Name, true
		}
		v, ok := t.Tags[k]
		return v, ok
	case api.RefMeshSubset:
		v, ok := t.Tags[k]
		return v, ok
	case api.RefDataplane:
		if k == selDataplane && t.Name != "" {
			return t.Name, true
		}
		if k == selSection && t.SectionName != "" {
			return t.SectionName, true
		}
		v, ok := t.Tags[k]
		return v, ok
	}
	return "", false
}

// selectsProxies reports whether a top-level kind selects proxies by tags, labels
// or name, so that containment between targets is meaningful.
func selectsProxies(k api.RefKind) bool {
	switch k {
	case "", api.RefMesh, api.RefMeshSubset, api.RefMeshService, api.RefMeshServiceSubset, api.RefDataplane:
		return true
	}
	return false
}

// Group is one set of proxies with the policies that apply to it, in merge order.
type Group struct {
	Target   Target
	Policies []Policy
}

// GroupPolicies finds the distinct targets of ps and, for each, the policies that
// apply, sorted least specific first. Proxies matched by two unrelated targets
// (say MeshService a and MeshSubset env=dev) get both; such intersections are not
// enumerated as groups of their own. Groups come sorted by mesh, level, kind and
// key so output is deterministic.
func GroupPolicies(ps []Policy, systemNamespace string) []Group {
	gs, _ := groupPolicies(ps, systemNamespace, false)
	return gs
}

// groupInfo is what groupPolicies knows about the policies of one group, in the
// group's order: whether each policy's own target is the group's (TargetOf of
// Policies[k] has the key of Target), which Analyze needs, and, when asked for,
// their Refs.
type groupInfo struct {
	own  []bool
	refs []string
}

// keyedTarget is a target with its key, computed once: keys are compared while
// sorting.
type keyedTarget struct {
	t   Target
	key string
}

// distinctTargets computes every policy's target and key and returns the distinct
// targets sorted by mesh, kind rank and key: the groups, in output order.
func distinctTargets(ps []Policy, systemNamespace string) (pts []Target, keys []string, targets []keyedTarget) {
	seen := map[string]bool{}
	pts = make([]Target, len(ps))
	keys = make([]string, len(ps))
	for i, p := range ps {
		pts[i] = TargetOf(p, systemNamespace)
		keys[i] = pts[i].key()
		if k := keys[i]; !seen[k] {
			seen[k] = true
			targets = append(targets, keyedTarget{pts[i], k})
		}
	}
	slices.SortFunc(targets, func(a, b keyedTarget) int {
		if c := cmp.Compare(a.t.Mesh, b.t.Mesh); c != 0 {
			return c
		}
		if c := cmp.Compare(KindRank(api.TargetRef{Kind: a.t.Kind, Name: a.t.Name, SectionName: a.t.SectionName}),
			KindRank(api.TargetRef{Kind: b.t.Kind, Name: b.t.Name, SectionName: b.t.SectionName})); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	return pts, keys, targets
}

// groupPolicies is GroupPolicies that also returns each group's groupInfo; refs
// are filled when withRefs. Targets, keys, sort keys and Refs are computed once per
// policy, not once per group the policy is in.
func groupPolicies(ps []Policy, systemNamespace string, withRefs bool) ([]Group, []groupInfo) {
	pts, keys, targets := distinctTargets(ps, systemNamespace)
	// Applies needs the same mesh and a policy namespace that is empty or the
	// group's, so only those buckets are scanned: linting thousands of policies in
	// many namespaces stays near-linear instead of comparing every pair.
	type bucket struct{ mesh, ns string }
	byScope := map[bucket][]int{}
	for i, pt := range pts {
		b := bucket{pt.Mesh, pt.Namespace}
		byScope[b] = append(byScope[b], i)
	}
	sortKeys := make([]sortKey, len(ps))
	for i, p := range ps {
		sortKeys[i] = keyOf(p, systemNamespace)
	}
	var refs []string
	if withRefs {
		refs = make([]string, len(ps))
		for i, p := range ps {
			refs[i] = p.Ref()
		}
	}
	out := make([]Group, 0, len(targets))
	infos := make([]groupInfo, 0, len(targets))
	var members []int
	for _, kt := range targets {
		t := kt.t
		cand := byScope[bucket{t.Mesh, ""}]
		if t.Namespace != "" {
			// Both lists are in input order; merge them to keep it.
			cand = mergeSorted(cand, byScope[bucket{t.Mesh, t.Namespace}])
		}
		members = members[:0]
		for _, i := range cand {
			if appliesKeyed(pts[i], t, keys[i], kt.key) {
				members = append(members, i)
			}
		}
		// SortPolicies of the members: they are in input order, so the input index
		// breaks ties as SortPolicies' position does.
		slices.SortFunc(members, func(a, b int) int {
			if c := compareKeys(sortKeys[a], sortKeys[b]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		g := Group{Target: t}
		var info groupInfo
		if len(members) > 0 {
			g.Policies = make([]Policy, len(members))
			info.own = make([]bool, len(members))
			if withRefs {
				info.refs = make([]string, len(members))
			}
			for k, i := range members {
				g.Policies[k] = ps[i]
				info.own[k] = keys[i] == kt.key
				if withRefs {
					info.refs[k] = refs[i]
				}
			}
		}
		out = append(out, g)
		infos = append(infos, info)
	}
	return out, infos
}

// mergeSorted merges two ascending index lists.
func mergeSorted(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0] < b[0] {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// Scope says in words which proxies a target covers, for previews and warnings:
// "proxies of MeshService backend in namespace X of mesh default", "all proxies in
// mesh default".
func (t Target) Scope() string {
	var what string
	switch t.Kind {
	case api.RefMesh, "":
		what = "all proxies"
	case api.RefMeshSubset:
		what = "proxies with tags " + tagString(t.Tags)
	case api.RefMeshService:
		what = "proxies of MeshService " + t.Name
	case api.RefMeshServiceSubset:
		what = "proxies of MeshService " + t.Name + " with tags " + tagString(t.Tags)
	case api.RefDataplane:
		switch {
		case t.Name != "" && t.SectionName != "":
			what = "inbound " + t.SectionName + " of Dataplane " + t.Name
		case t.Name != "":
			what = "Dataplane " + t.Name
		case len(t.Tags) > 0:
			what = "Dataplanes with labels " + tagString(t.Tags)
		default:
			what = "all Dataplanes"
		}
	case api.RefMeshHTTPRoute, api.RefMeshGatewayRoute:
		what = "requests routed by " + string(t.Kind) + " " + t.Name
	default:
		what = "proxies of " + string(t.Kind) + " " + t.Name
	}
	if t.Zone != "" {
		what += " in zone " + t.Zone
	}
	if t.Namespace != "" {
		return what + " in namespace " + t.Namespace + " of mesh " + t.Mesh
	}
	return what + " in mesh " + t.Mesh
}

// tagString renders tags sorted as k=v,k2=v2.
func tagString(m map[string]string) string {
	if len(m) == 0 {
		return ""
	}
	var small [8]string // targets and items have a handful of tags
	keys := small[:0]
	n := len(m) - 1 // commas
	for k, v := range m {
		keys = append(keys, k)
		n += len(k) + 1 + len(v)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.Grow(n)
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(m[k])
	}
	return b.String()
}
