package kumarules

import (
	"cmp"
	"slices"

	"github.com/meshguard/meshguard/api"
)

// FromRules is what the `from` and `rules` sections of the policies of one kind
// that select an inbound give that inbound.
type FromRules struct {
	// Rules are the subset rules of the `from` items (clients by tag), with negations.
	Rules []Rule `json:"rules"`
	// InboundRules are the `rules` entries (and, for the kinds Kuma converts, the
	// `from` items) in the order Kuma applies them, one per match.
	InboundRules []InboundRule `json:"inboundRules"`
}

// BuildFromRules computes the `from` rules of one inbound from the policies (one
// kind) that select it, in merge order. A kind without a `from` section gives no
// rules at all, as in Kuma.
func (e *Engine) BuildFromRules(policies []Policy) (FromRules, error) {
	var items []Item
	for _, p := range policies {
		if !e.has(p.Type, api.SecFrom) {
			return FromRules{Rules: []Rule{}, InboundRules: []InboundRule{}}, nil
		}
		its, err := listItems(p, "from", defaultOf)
		if err != nil {
			return FromRules{}, err
		}
		items = append(items, its...)
	}
	rules, err := BuildRules(items, true)
	if err != nil {
		return FromRules{}, err
	}
	inbound, err := e.BuildInboundRules(policies)
	if err != nil {
		return FromRules{}, err
	}
	return FromRules{Rules: rules, InboundRules: inbound}, nil
}

// InboundRule is one entry of an inbound's `rules` result: Conf applies to the
// traffic Match selects (nil: all of it), and came from Origin.
type InboundRule struct {
	Match  any    `json:"match"`
	Conf   any    `json:"conf"`
	Origin Origin `json:"origin"`
}

// BuildInboundRules lists the `rules` entries of the policies (one kind) that
// select an inbound, sorted as Kuma sorts them: policies by Compare (least
// specific first), then entries with a spiffeID match before those without (Exact
// before Prefix) and with an SNI match before those without. A policy with
// `rules` contributes them; one without, of a kind Kuma converts, its `from`
// items. Entries are not merged: the consumer applies them in order.
func (e *Engine) BuildInboundRules(policies []Policy) ([]InboundRule, error) {
	type entry struct {
		item    Item
		matches []any
	}
	var entries []entry
	for _, p := range policies {
		if !e.has(p.Type, api.SecRules) || !e.has(p.Type, api.SecFrom) {
			return []InboundRule{}, nil
		}
		rules, err := listItems(p, "rules", defaultOf)
		if err != nil {
			return nil, err
		}
		if len(rules) > 0 {
			list, _ := p.Spec["rules"].([]any)
			for i, it := range rules {
				m, _ := list[i].(map[string]any)
				ms, _ := m["matches"].([]any)
				entries = append(entries, entry{item: it, matches: ms})
			}
			continue
		}
		if api.KumaFromAsRules(p.Type) {
			from, err := listItems(p, "from", defaultOf)
			if err != nil {
				return nil, err
			}
			for _, it := range from {
				entries = append(entries, entry{item: it})
			}
		}
	}
	slices.SortStableFunc(entries, func(a, b entry) int { return compareItems(a.item, b.item) })
	out := []InboundRule{}
	for _, en := range entries {
		origin := Origin{Meta: en.item.Policy, Index: en.item.Index}
		if len(en.matches) == 0 {
			out = append(out, InboundRule{Conf: en.item.Conf, Origin: origin})
			continue
		}
		for _, m := range en.matches {
			out = append(out, InboundRule{Match: m, Conf: en.item.Conf, Origin: origin})
		}
	}
	slices.SortStableFunc(out, func(a, b InboundRule) int { return compareMatch(a.Match, b.Match) })
	return out, nil
}

// compareMatch orders rules' matches: spiffeID matches first (Exact, then Prefix),
// then SNI matches, then the catch-alls.
func compareMatch(a, b any) int {
	am, _ := a.(map[string]any)
	bm, _ := b.(map[string]any)
	as, bs := am["spiffeID"], bm["spiffeID"]
	switch {
	case as != nil && bs == nil:
		return -1
	case as == nil && bs != nil:
		return 1
	case as != nil:
		if c := cmp.Compare(spiffeScore(bs), spiffeScore(as)); c != 0 {
			return c
		}
	}
	an, bn := am["sni"], bm["sni"]
	switch {
	case an != nil && bn == nil:
		return -1
	case an == nil && bn != nil:
		return 1
	}
	return 0
}

func spiffeScore(v any) int {
	m, _ := v.(map[string]any)
	switch m["type"] {
	case "Exact":
		return 2
	case "Prefix":
		return 1
	}
	return 0
}
