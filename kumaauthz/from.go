package kumaauthz

import (
	"fmt"

	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/config/rbac/v3"
	netrbac "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/rbac/v3"

	"github.com/meshguard/meshguard/api"
)

// Form is how a preview's RBAC is written.
type Form string

// The forms: the MeshTrafficPermission MADR's full rule view with negations, the polynomial equivalent,
// and the SPIFFE-matches MADR's matcher tree (chosen automatically for SPIFFE-matcher policies).
const (
	FormExpanded Form = "expanded"
	FormCompact  Form = "compact"
	FormMatcher  Form = "matcher"
	// FormSkipped is a preview whose group has more items than
	// Options.MaxGroupItems: it names the group and its policies but holds no
	// compiled RBAC.
	FormSkipped Form = "skipped"
)

// Names of the generated RBAC policies and defaults, as the MeshTrafficPermission MADR spells them.
const (
	PolicyName         = api.KindMeshTrafficPermission
	ShadowPolicyName   = "Shadow" + api.KindMeshTrafficPermission
	DefaultStatPrefix  = "mesh_traffic_permission."
	DefaultExpandBound = 4096
)

// Options tune compilation; the zero value means compact form, the default bound,
// Kuma's system namespace and the default stat prefix.
type Options struct {
	Form Form
	// MaxExpandedRules bounds the expanded form's rule view (0: DefaultExpandBound).
	MaxExpandedRules int
	// SystemNamespace is where mesh-wide policies live (empty: kuma-system).
	SystemNamespace string
	// StatPrefix is the network filter's required stat_prefix.
	StatPrefix string
	// MaxGroupItems bounds the size of a group BuildPreviews compiles (0: no
	// bound): at most this many merged items of one tag each, fewer when items
	// carry more tags (see overBound). The analysis and the compact form compare
	// items pairwise, tag by tag, so a group of 20,000 items takes seconds to
	// minutes: past the bound a preview is FormSkipped. The admission webhook sets
	// it, since the API server waits only seconds for an answer; the CLI does not.
	MaxGroupItems int
	// Identities are the MeshIdentities of the mesh: the proxies a Ready one
	// selects are programmed from `rules` policies only (BuildPreviews).
	Identities []Identity
}

func (o Options) withDefaults() Options {
	if o.Form == "" {
		o.Form = FormCompact
	}
	if o.MaxExpandedRules <= 0 {
		o.MaxExpandedRules = DefaultExpandBound
	}
	if o.SystemNamespace == "" {
		o.SystemNamespace = "kuma-system"
	}
	if o.StatPrefix == "" {
		o.StatPrefix = DefaultStatPrefix
	}
	return o
}

// FromResult is a compiled `from` list.
type FromResult struct {
	// Config is the network RBAC filter config, already validated.
	Config *netrbac.RBAC
	// Form is the form actually emitted (expanded may fall back to compact).
	Form Form
	// Warnings explain a fallback; they are shown in the preview.
	Warnings []string
}

// CompileFrom compiles an already merged `from` list (least specific first, last
// matching item decides) for proxies of mesh localMesh. It is the entry point for a
// list that is stated outright, like the MeshTrafficPermission MADR's concatenated example.
func CompileFrom(localMesh string, items []MergedItem, opts Options) (FromResult, error) {
	cs, err := toItems(items, localMesh)
	if err != nil {
		return FromResult{}, err
	}
	return compileItems(cs, opts)
}

// compileItems is CompileFrom given toItems' result for the list.
func compileItems(cs []cItem, opts Options) (FromResult, error) {
	opts = opts.withDefaults()
	res := FromResult{Form: opts.Form}
	var allow, shadow []*rbacv3.Principal
	switch opts.Form {
	case FormExpanded:
		view, n, ok := expand(cs, opts.MaxExpandedRules, false)
		if ok {
			allow, shadow = viewPrincipals(view, newPrincipals(len(cs)))
			break
		}
		res.Form = FormCompact
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"expanded form needs up to %d rules (tag combinations), more than the bound %d; the equivalent compact form is shown instead", n, opts.MaxExpandedRules))
		fallthrough
	case FormCompact:
		l := newItemLeaves(cs)
		allow = compact(cs, Action.Allows, l)
		if hasShadow(cs) {
			shadow = compact(cs, Action.ShadowAllows, l)
		}
	default:
		return FromResult{}, fmt.Errorf("unknown form %q (want expanded or compact)", opts.Form)
	}
	cfg := &netrbac.RBAC{StatPrefix: opts.StatPrefix, Rules: allowRBAC(PolicyName, allow)}
	if hasShadow(cs) {
		cfg.ShadowRules = allowRBAC(ShadowPolicyName, shadow)
	}
	if err := cfg.ValidateAll(); err != nil {
		return FromResult{}, fmt.Errorf("internal error: generated RBAC config is invalid: %v", err)
	}
	res.Config = cfg
	return res, nil
}

// hasShadow reports whether shadow rules differ from rules at all; without shadow
// actions Kuma emits no shadow_rules and neither do we.
func hasShadow(cs []cItem) bool {
	for _, c := range cs {
		if c.action == AllowWithShadowDeny || c.action == DenyWithShadowAllow {
			return true
		}
	}
	return false
}

// allowRBAC is an ALLOW RBAC with one policy granting everything to principals.
// With no principals it has no policies, which Envoy reads as "deny everyone"
// (Policy requires at least one principal).
func allowRBAC(name string, ps []*rbacv3.Principal) *rbacv3.RBAC {
	r := &rbacv3.RBAC{Action: rbacv3.RBAC_ALLOW, Policies: map[string]*rbacv3.Policy{}}
	if len(ps) > 0 {
		r.Policies[name] = &rbacv3.Policy{
			Permissions: []*rbacv3.Permission{{Rule: &rbacv3.Permission_Any{Any: true}}},
			Principals:  ps,
		}
	}
	return r
}

// compact builds, for every item whose outcome is allowed, the principal "matches
// the item and matches no later item with the other outcome". Later items that
// cannot overlap are dropped; an item covered by a later item of the other outcome
// can never allow anyone and is dropped whole. Size is O(n²) atoms at worst.
func compact(cs []cItem, allowed func(Action) bool, l *itemLeaves) []*rbacv3.Principal {
	// others lists the items with the other outcome; next walks past the ones
	// before i, so a list of n allows and k denies costs O(n·k), not O(n²).
	var others []int
	for i, it := range cs {
		if !allowed(it.action) {
			others = append(others, i)
		}
	}
	out := make([]*rbacv3.Principal, 0, len(cs)-len(others))
	size := 0
	for _, it := range cs {
		size += len(it.atoms) + 1
	}
	idbuf := make([]*rbacv3.Principal, 0, size) // backs every item's ids list
	next := 0
	for i, it := range cs {
		if !allowed(it.action) {
			next++
			continue
		}
		var excl []*rbacv3.Principal
		dead := false
		for _, j := range others[next:] {
			later := cs[j]
			if !overlaps(it, later) {
				continue
			}
			if covers(later, it) {
				dead = true
				break
			}
			excl = append(excl, l.matchOf(j))
		}
		if dead {
			continue
		}
		if len(excl) == 0 && len(it.atoms) == 1 {
			out = append(out, l.id(i, 0))
			continue
		}
		start := len(idbuf)
		ids := idbuf[start : start : start+len(it.atoms)+1]
		for k := range it.atoms {
			ids = append(ids, l.id(i, k))
		}
		if len(excl) > 0 {
			ids = append(ids, notP(orP(excl)))
		}
		idbuf = idbuf[:start+len(ids)]
		out = append(out, andP(ids))
	}
	return out
}

// viewPrincipals turns the rule view into the rules and shadow_rules principals:
// a combination goes to rules when its deciding action allows, to shadow_rules
// when its shadow action allows; unmatched combinations are denied by both.
func viewPrincipals(view []ViewRule, b *principals) (allow, shadow []*rbacv3.Principal) {
	for _, r := range view {
		if !r.Matched || (!r.Action.Allows() && !r.Action.ShadowAllows()) {
			continue
		}
		ids := make([]*rbacv3.Principal, 0, len(r.conds))
		for _, c := range r.conds {
			if c.not {
				ids = append(ids, b.notID(c.atom))
			} else {
				ids = append(ids, b.id(c.atom))
			}
		}
		p := andP(ids)
		if r.Action.Allows() {
			allow = append(allow, p)
		}
		if r.Action.ShadowAllows() {
			shadow = append(shadow, p)
		}
	}
	return allow, shadow
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
