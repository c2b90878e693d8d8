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
	Matches Free `json:"matches,omitempty"`
	Default *C   `json:"default,omitempty"`
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

// MeshHTTPRouteSpec is a MeshHTTPRoute: routes for the proxies of targetRef towards
// the services of to[].targetRef.
type MeshHTTPRouteSpec struct {
	TargetRef *TargetRef    `json:"targetRef,omitempty"`
	To        []HTTPRouteTo `json:"to,omitempty"`
}

// HTTPRouteTo is one destination of a MeshHTTPRoute with its rules.
type HTTPRouteTo struct {
	TargetRef *TargetRef      `json:"targetRef,omitempty"`
	Hostnames []string        `json:"hostnames,omitempty"`
	Rules     []HTTPRouteRule `json:"rules,omitempty"`
}

// HTTPRouteRule is one match/default pair of a MeshHTTPRoute.
type HTTPRouteRule struct {
	Matches []HTTPMatch   `json:"matches,omitempty"`
	Default HTTPRouteConf `json:"default"`
}

// HTTPMatch is a request match of a MeshHTTPRoute.
type HTTPMatch struct {
	Path        *StringMatch `json:"path,omitempty"`
	Method      string       `json:"method,omitempty"`
	QueryParams Free         `json:"queryParams,omitempty"`
	Headers     Free         `json:"headers,omitempty"`
}

// HTTPRouteConf is what a matching request gets: filters and backends.
type HTTPRouteConf struct {
	Filters     []HTTPFilter  `json:"filters,omitempty"`
	BackendRefs *[]BackendRef `json:"backendRefs,omitempty"`
}

// HTTPFilter is a MeshHTTPRoute filter; only requestMirror carries a reference.
type HTTPFilter struct {
	Type                   string         `json:"type,omitempty"`
	RequestHeaderModifier  Free           `json:"requestHeaderModifier,omitempty"`
	ResponseHeaderModifier Free           `json:"responseHeaderModifier,omitempty"`
	RequestRedirect        Free           `json:"requestRedirect,omitempty"`
	URLRewrite             Free           `json:"urlRewrite,omitempty"`
	RequestMirror          *RequestMirror `json:"requestMirror,omitempty"`
}

// RequestMirror mirrors requests to a backend.
type RequestMirror struct {
	BackendRef BackendRef `json:"backendRef"`
	Percentage Free       `json:"percentage,omitempty"`
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
