package kumaauthz

import (
	"fmt"

	httprbac "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/rbac/v3"
	netrbac "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/rbac/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// PreviewItem is one element of a group's merged list with the policy it came from:
// a `from` item (TargetRef, Action) or a matcher (List, SpiffeID, SNI, and the
// SPIFFE-matches MADR's Method and RequestPath).
type PreviewItem struct {
	Policy      string           `json:"policy"`
	Path        string           `json:"path"`
	TargetRef   *api.TargetRef   `json:"targetRef,omitempty"`
	Action      string           `json:"action,omitempty"`
	List        string           `json:"list,omitempty"`
	SpiffeID    *api.StringMatch `json:"spiffeId,omitempty"`
	SNI         *api.StringMatch `json:"sni,omitempty"`
	Method      string           `json:"method,omitempty"`
	RequestPath *api.StringMatch `json:"requestPath,omitempty"`
}

// Preview is what one group of proxies gets: the policies in merge order, the
// merged list, and the Envoy RBAC filter config built from it. It is the unit of
// `meshguard preview` output and of the webhook's admission warnings.
type Preview struct {
	Target Target
	Scope  string
	// Identity is the MeshIdentity (Ref) that gives these proxies their
	// identity: only `rules` policies are programmed then.
	Identity string
	Policies []string
	// Hidden counts the group's policies Policies leaves out (Redact): those in
	// namespaces the reader is not shown.
	Hidden int
	Items  []PreviewItem
	Form   Form
	// RBAC is the network RBAC filter config (rules/shadow_rules or matchers).
	RBAC *netrbac.RBAC
	// HTTPRBAC is the HTTP RBAC filter enforcing method/path conditions, if any.
	HTTPRBAC *httprbac.RBAC
	// Warnings are compilation notes: a form fallback, ignored policies, HTTP
	// conditions.
	Warnings []string
	// Findings are the MG2xx analysis warnings of the group.
	Findings field.ErrorList
}

// BuildPreviews groups ps by the proxies they select and compiles each group. A
// group is compiled to the SPIFFE-matches MADR's matcher tree when any of its policies uses SPIFFE
// matchers (Envoy ignores `rules` once a matcher is set), otherwise to the MeshTrafficPermission MADR's
// rules/shadow_rules in opts.Form.
func BuildPreviews(ps []Policy, opts Options) ([]Preview, error) {
	opts = opts.withDefaults()
	var out []Preview
	groups, infos := groupPolicies(ps, opts.SystemNamespace, true)
	byKey := make(map[string][]Policy, len(groups))
	for _, g := range groups {
		byKey[g.Target.key()] = g.Policies
	}
	for i, g := range groups {
		vs := []identityVariant{{}}
		if len(opts.Identities) > 0 {
			vs = identityVariants(g.Target, nil, opts.Identities)
		}
		for _, v := range vs {
			var pv Preview
			var err error
			if v.new != nil {
				pv, err = identityPreview(g, infos[i], v, opts)
			} else {
				pv, err = buildPreview(g, infos[i], opts)
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %v", g.Target.Scope(), err)
			}
			if len(vs) > 1 {
				pv.Scope = variantScope(pv.Scope, v)
			}
			out = append(out, pv)
		}
	}
	previewBaselines(out, byKey)
	return out, nil
}

// variantScope is a group's scope narrowed to one part (identityVariants).
func variantScope(scope string, v identityVariant) string {
	if len(v.labels) > 0 {
		return scope + ", those with labels " + tagString(v.labels)
	}
	return scope + ", those no other MeshIdentity selects"
}

// identityPreview is the preview of a group's proxies that MeshIdentity v.new
// gives an identity: their `rules` policies compiled to the matcher tree (none:
// a tree that denies every client), the `from` ones named as not programmed.
func identityPreview(g Group, info groupInfo, v identityVariant, opts Options) (Preview, error) {
	pv := Preview{Target: g.Target, Scope: g.Target.Scope(), Identity: v.new.Ref(), Policies: info.refs}
	kept, notes := identityPolicies(g.Policies, v.new)
	pv.Warnings = append(pv.Warnings, notes...)
	if n, tags := groupSize(kept); overBound(n, tags, opts.MaxGroupItems) {
		pv.Form = FormSkipped
		pv.Warnings = append(pv.Warnings, fmt.Sprintf(
			"%d items to merge exceed the bound of %d; not compiled here (meshguard preview compiles any size)", n, opts.MaxGroupItems))
		return pv, nil
	}
	var entries []SpiffeEntry
	for _, p := range kept {
		for _, e := range SpiffeEntries(p) {
			entries = append(entries, e)
			sm, _ := e.Match.Spiffe()
			pv.Items = append(pv.Items, PreviewItem{Policy: e.Policy, Path: e.Path, List: e.List, SpiffeID: sm, SNI: e.Match.SNI, Method: e.Match.Method, RequestPath: e.Match.Path})
		}
	}
	if len(entries) == 0 {
		pv.Warnings = append(pv.Warnings, fmt.Sprintf("%s %s gives these proxies an identity and no `rules` MeshTrafficPermission selects them: their inbounds deny every client",
			api.KindMeshIdentity, v.new.Ref()))
	}
	res, err := CompileMatchers(entries, opts.StatPrefix)
	if err != nil {
		return pv, err
	}
	pv.Form, pv.RBAC, pv.HTTPRBAC = FormMatcher, res.Config, res.HTTP
	pv.Warnings = append(pv.Warnings, res.Warnings...)
	return pv, nil
}

// groupSize measures what a group would merge: its policies' `from` items and
// SPIFFE-matcher entries (spec.default and spec.rules), and the most tags one
// `from` item's targetRef carries.
func groupSize(ps []Policy) (items, maxTags int) {
	count := func(m *api.MTPMatches) {
		for _, l := range []*[]api.SpiffeMatch{m.Allow, m.AllowWithShadowDeny, m.Deny} {
			if l != nil {
				items += len(*l)
			}
		}
	}
	for _, p := range ps {
		items += len(p.Spec.From)
		for _, f := range p.Spec.From {
			if f.TargetRef != nil {
				maxTags = max(maxTags, len(f.TargetRef.Tags))
			}
		}
		if p.Spec.Default != nil {
			count(p.Spec.Default)
		}
		for i := range p.Spec.Rules {
			count(&p.Spec.Rules[i].Default)
		}
	}
	return items, maxTags
}

// overBound reports whether a group of items with up to maxTags tags each is
// past Options.MaxGroupItems. The analysis and the compact form compare items
// pairwise, tag by tag, and the time grew faster with tags than items² × tags
// would say (1,990 items of one tag: 0.26 s; 610 items of 20 tags: 1.7 s; 500 of
// 200: 3.3 s), so the bound is items × (1 + tags) ≤ 2 × MaxGroupItems, what that
// many items of one tag come to. Just under it, at 2,000, the slowest shapes
// measured took 0.17–0.33 s (990 items of 3 tags, 430 of 8, 180 of 20, 88 of 40).
func overBound(items, maxTags, bound int) bool {
	// An item without tags (Mesh, MeshService) still compiles to one atom.
	return bound > 0 && items*(1+max(1, maxTags)) > 2*bound
}

// buildPreview compiles group g, whose policies' own-target flags and Refs are
// info (see groupPolicies). The merged list and its compiled items are derived
// once and shared by the analysis and the compilation: the result is what Analyze
// and CompileFrom give.
func buildPreview(g Group, info groupInfo, opts Options) (Preview, error) {
	pv := Preview{Target: g.Target, Scope: g.Target.Scope(), Policies: info.refs}
	// As in Analyze: keyed by Ref, the last policy of a Ref decides.
	own := make(map[string]bool, len(g.Policies))
	for k, ref := range pv.Policies {
		own[ref] = info.own[k]
	}
	if n, tags := groupSize(g.Policies); overBound(n, tags, opts.MaxGroupItems) {
		pv.Form = FormSkipped
		pv.Warnings = append(pv.Warnings, fmt.Sprintf(
			"%d items (up to %d tags each) to merge exceed the bound of %d; not compiled here (meshguard preview compiles any size)",
			n, tags, opts.MaxGroupItems))
		return pv, nil
	}
	if usesMatchers(g.Policies) {
		var none field.ErrorList
		pv.Findings = append(none, analyzeMatchers(g, own)...)
		var entries []SpiffeEntry
		for _, p := range g.Policies {
			if !p.IsRulesForm() {
				if len(p.Spec.From) > 0 {
					pv.Warnings = append(pv.Warnings, fmt.Sprintf(
						"%s uses `from`, which is ignored here: the group also has SPIFFE-matcher policies and Envoy ignores rules when a matcher is set", p.Ref()))
				}
				continue
			}
			for _, e := range SpiffeEntries(p) {
				entries = append(entries, e)
				sm, _ := e.Match.Spiffe()
				pv.Items = append(pv.Items, PreviewItem{Policy: e.Policy, Path: e.Path, List: e.List, SpiffeID: sm, SNI: e.Match.SNI, Method: e.Match.Method, RequestPath: e.Match.Path})
			}
		}
		res, err := CompileMatchers(entries, opts.StatPrefix)
		if err != nil {
			return pv, err
		}
		pv.Form, pv.RBAC, pv.HTTPRBAC = FormMatcher, res.Config, res.HTTP
		pv.Warnings = append(pv.Warnings, res.Warnings...)
		return pv, nil
	}
	items := mergeFrom(g.Policies, pv.Policies)
	cs, err := toItems(items, g.Target.Mesh)
	pv.Findings = analyzeFrom(g, own, pv.Scope, pv.Policies, items, cs, err)
	if len(items) > 0 {
		pv.Items = make([]PreviewItem, 0, len(items))
	}
	for _, it := range items {
		pv.Items = append(pv.Items, PreviewItem{Policy: it.Policy, Path: it.Path(), TargetRef: it.From.TargetRef, Action: it.From.Default.Action})
	}
	if err != nil {
		return pv, err
	}
	res, err := compileItems(cs, opts)
	if err != nil {
		return pv, err
	}
	pv.Form, pv.RBAC = res.Form, res.Config
	pv.Warnings = append(pv.Warnings, res.Warnings...)
	return pv, nil
}
