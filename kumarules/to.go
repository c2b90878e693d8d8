package kumarules

import (
	"fmt"

	"github.com/meshguard/meshguard/api"
)

// ToRules is what the `to` sections of the policies of one kind that select a
// proxy give its outbounds.
type ToRules struct {
	// Rules are the legacy subset rules (destinations by kuma.io/service and tags).
	Rules []Rule `json:"rules"`
	// ResourceRules are the rules of real resources, by KRI (see BuildResourceRules).
	ResourceRules map[string]ResourceRule `json:"resourceRules"`
}

// BuildToRules computes the legacy `to` rules from the policies (one kind) that
// select a proxy, in merge order, and the rules of the real resources among
// objects (which also hold the MeshHTTPRoutes a policy with a top-level
// MeshHTTPRoute targetRef may name). For the legacy rules, a policy with a `to`
// item that targets a MeshHTTPRoute takes no part (Kuma handles those with
// resource rules); one that targets a MeshHTTPRoute at top level contributes, for
// each rule of that route, its items keyed by the route rule's matches. Resource
// rules leave out the policies with a top-level MeshHTTPRoute.
func (e *Engine) BuildToRules(policies, objects []Policy) (ToRules, error) {
	var routes []Policy
	for _, o := range objects {
		if o.Type == refMeshHTTPRoute {
			routes = append(routes, o)
		}
	}
	return e.buildToRules(policies, routes, newResourceIndex(objects), true)
}

// buildToRules is BuildToRules over indexed objects; without legacy, the legacy
// subset rules are left empty (not computed).
func (e *Engine) buildToRules(policies, routes []Policy, res *resourceIndex, legacy bool) (ToRules, error) {
	var direct []Policy
	var items []Item
	for _, p := range policies {
		if !e.has(p.Type, api.SecTo) {
			return ToRules{Rules: []Rule{}, ResourceRules: map[string]ResourceRule{}}, nil
		}
		top := p.TopRef()
		if top.Kind != refMeshHTTPRoute {
			direct = append(direct, p)
		}
		if !legacy {
			continue
		}
		its, err := listItems(p, "to", toConf(p.Type))
		if err != nil {
			return ToRules{}, err
		}
		if targetsRoute(its) {
			continue
		}
		if top.Kind == refMeshHTTPRoute {
			if its, err = routeItems(p, top, its, routes); err != nil {
				return ToRules{}, err
			}
		}
		items = append(items, its...)
	}
	rules := []Rule{}
	if legacy {
		var err error
		if rules, err = BuildRules(items, false); err != nil {
			return ToRules{}, err
		}
	}
	rr, err := e.buildResourceRules(direct, res)
	if err != nil {
		return ToRules{}, err
	}
	return ToRules{Rules: rules, ResourceRules: rr}, nil
}

func targetsRoute(items []Item) bool {
	for _, it := range items {
		if it.Ref.Kind == refMeshHTTPRoute {
			return true
		}
	}
	return false
}

// ruleMatchesTag is the artificial tag Kuma keys route-targeting items by: the
// hash of the route rule's matches.
const ruleMatchesTag = "__rule-matches-hash__"

// routeItems expands the items of a policy whose top-level targetRef is a
// MeshHTTPRoute: for every rule of every `to` item of the route, each item of
// the policy applies to the route rule's matches (within the route item's
// service, unless that targets the whole mesh).
func routeItems(p Policy, top TargetRef, items []Item, routes []Policy) ([]Item, error) {
	var route *Policy
	for i := range routes {
		if routes[i].Mesh == p.Mesh && (routes[i].Name == top.Name || routes[i].DisplayName() == top.Name) {
			route = &routes[i]
		}
	}
	if route == nil {
		return nil, fmt.Errorf("%s %s: spec.targetRef: can't resolve MeshHTTPRoute %q", p.Type, p.Name, top.Name)
	}
	var out []Item
	tos, _ := route.Spec["to"].([]any)
	for _, t := range tos {
		tm, _ := t.(map[string]any)
		ref := parseTargetRef(tm["targetRef"])
		rules, _ := tm["rules"].([]any)
		for _, r := range rules {
			rm, _ := r.(map[string]any)
			hash, err := HashMatches(rm["matches"])
			if err != nil {
				return nil, err
			}
			for _, it := range items {
				it.Ref = TargetRef{Kind: refMeshSubset, Tags: map[string]string{ruleMatchesTag: hash}}
				if ref.Kind != refMesh && ref.Kind != refMeshSubset {
					it.Ref = TargetRef{Kind: refMeshServiceSubset, Name: ref.Name, Tags: it.Ref.Tags}
				}
				out = append(out, it)
			}
		}
	}
	return out, nil
}

// SingleItemRules is what the `default` of single-item policies (MeshTrace,
// MeshMetric, MeshProxyPatch, ...) that select a proxy gives it.
type SingleItemRules struct {
	Rules []Rule `json:"rules"`
}

// BuildSingleItemRules merges the `default`s of the policies (one kind) that select
// a proxy, in merge order, into one rule for the whole mesh. A kind with `to` or
// `from` gives no rules, as in Kuma.
func (e *Engine) BuildSingleItemRules(policies []Policy) (SingleItemRules, error) {
	items := make([]Item, 0, len(policies))
	for _, p := range policies {
		if !e.has(p.Type, api.SecDefault) || e.has(p.Type, api.SecTo) || e.has(p.Type, api.SecFrom) {
			return SingleItemRules{Rules: []Rule{}}, nil
		}
		items = append(items, Item{Policy: p.Meta, Ref: TargetRef{Kind: refMesh}, Conf: cleanConf(p.Spec["default"])})
	}
	rules, err := BuildRules(items, false)
	if err != nil {
		return SingleItemRules{}, err
	}
	return SingleItemRules{Rules: rules}, nil
}
