package api

// Free is a part of a spec meshguard does not model field by field (for example most
// policies' `default` confs). It accepts any JSON value, so it never reports unknown
// fields: a wrong "unknown field" warning would be worse than none.
type Free = any

// Policy is the shape every Kuma targetRef policy shares; C is the kind's conf, the
// type of the `default` of its to/from/rules items (or of its single `default`).
// Which sections a kind really has is in its registry entry (Kind.Sections); the CRD
// schema prunes the others. A kind's typed spec is Policy of its conf
// (`type MeshTimeoutSpec = Policy[MeshTimeoutConf]`), so the rules every policy
// shares and the kind's own rules read the same decoded value.
type Policy[C any] struct {
	TargetRef *TargetRef  `json:"targetRef,omitempty"`
	To        []ItemOf[C] `json:"to,omitempty"`
	From      []ItemOf[C] `json:"from,omitempty"`
	Rules     []RuleOf[C] `json:"rules,omitempty"`
	Default   *C          `json:"default,omitempty"`
}

// ItemOf is one element of a `to` or `from` list; Default is nil when absent.
type ItemOf[C any] struct {
	TargetRef *TargetRef `json:"targetRef,omitempty"`
	Default   *C         `json:"default,omitempty"`
}

// RuleOf is one element of an inbound `rules` list (Kuma 2.10+).
type RuleOf[C any] struct {
	Matches []RuleMatch `json:"matches,omitempty"`
	Default *C          `json:"default,omitempty"`
}

// RuleMatch is one condition of a `rules[].matches` list: the client's SPIFFE ID or
// the SNI of its TLS connection (Kuma's common Match). Kuma requires at least one
// of the two in some kinds; which is the shared rules' business.
type RuleMatch struct {
	SpiffeID *StringMatch `json:"spiffeID,omitempty"`
	SNI      *StringMatch `json:"sni,omitempty"`
}

// PolicySpec is the spec of a kind whose conf is not modelled field by field.
type PolicySpec = Policy[Free]

// Targeted is what the rules every policy shares read, whatever the kind's conf.
type Targeted interface {
	// Top is the top-level targetRef, nil when absent.
	Top() *TargetRef
	// ToRefs and FromRefs are the targetRefs of the to and from items, nil where an
	// item has none.
	ToRefs() []*TargetRef
	FromRefs() []*TargetRef
	// HasConf reports whether the spec configures anything: items, rules or a default.
	HasConf() bool
	// Items lists the to, from and rules items in that order, each with what the
	// shared rules check: its targetRef, whether it has a default, its matches.
	Items() []PolicyItem
	// HasDefault reports whether the spec's single `default` is present.
	HasDefault() bool
}

// PolicyItem is one element of a policy's to, from or rules list as the shared
// rules see it, whatever the kind's conf.
type PolicyItem struct {
	// Section is "to", "from" or "rules"; Index is the item's place in it.
	Section string
	Index   int
	// Ref is the item's targetRef (nil when absent, and always for rules).
	Ref *TargetRef
	// HasDefault reports whether the item's `default` is present.
	HasDefault bool
	// Matches are a rules item's matches (nil for to and from).
	Matches []RuleMatch
}

// Top implements Targeted.
func (p *Policy[C]) Top() *TargetRef { return p.TargetRef }

// ToRefs implements Targeted.
func (p *Policy[C]) ToRefs() []*TargetRef { return itemRefs(p.To) }

// FromRefs implements Targeted.
func (p *Policy[C]) FromRefs() []*TargetRef { return itemRefs(p.From) }

// HasConf implements Targeted.
func (p *Policy[C]) HasConf() bool {
	return len(p.To) > 0 || len(p.From) > 0 || len(p.Rules) > 0 || p.Default != nil
}

// Items implements Targeted.
func (p *Policy[C]) Items() []PolicyItem {
	out := make([]PolicyItem, 0, len(p.To)+len(p.From)+len(p.Rules))
	for i, it := range p.To {
		out = append(out, PolicyItem{Section: "to", Index: i, Ref: it.TargetRef, HasDefault: it.Default != nil})
	}
	for i, it := range p.From {
		out = append(out, PolicyItem{Section: "from", Index: i, Ref: it.TargetRef, HasDefault: it.Default != nil})
	}
	for i, r := range p.Rules {
		out = append(out, PolicyItem{Section: "rules", Index: i, HasDefault: r.Default != nil, Matches: r.Matches})
	}
	return out
}

// HasDefault implements Targeted.
func (p *Policy[C]) HasDefault() bool { return p.Default != nil }

func itemRefs[C any](items []ItemOf[C]) []*TargetRef {
	out := make([]*TargetRef, len(items))
	for i := range items {
		out[i] = items[i].TargetRef
	}
	return out
}

// StringMatch is an {type, value} matcher (Exact or Prefix for SPIFFE IDs).
type StringMatch struct {
	Type  string `json:"type,omitempty"`
	Value string `json:"value,omitempty"`
}

// MeshTCPRouteSpec is a MeshTCPRoute.
type MeshTCPRouteSpec struct {
	TargetRef *TargetRef   `json:"targetRef,omitempty"`
	To        []TCPRouteTo `json:"to,omitempty"`
}

// TCPRouteTo is one destination of a MeshTCPRoute.
type TCPRouteTo struct {
	TargetRef *TargetRef     `json:"targetRef,omitempty"`
	Rules     []TCPRouteRule `json:"rules,omitempty"`
}

// TCPRouteRule holds the backends of a MeshTCPRoute destination.
type TCPRouteRule struct {
	Default TCPRouteConf `json:"default"`
}

// TCPRouteConf lists the backends of a MeshTCPRoute rule.
type TCPRouteConf struct {
	BackendRefs []BackendRef `json:"backendRefs,omitempty"`
}
