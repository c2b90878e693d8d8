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

// MeshTrafficPermissionSpec covers both generations of MeshTrafficPermission: the
// `from` list of the MeshTrafficPermission MADR and the SPIFFE matchers of the SPIFFE-matches MADR, written either as
// `spec.default` (seed spelling) or `spec.rules[].default` (Kuma 2.12+).
type MeshTrafficPermissionSpec struct {
	TargetRef *TargetRef  `json:"targetRef,omitempty"`
	From      []MTPFrom   `json:"from,omitempty"`
	Rules     []MTPRule   `json:"rules,omitempty"`
	Default   *MTPMatches `json:"default,omitempty"`
}

// MTPFrom is one client group of a `from`-style MeshTrafficPermission.
type MTPFrom struct {
	TargetRef *TargetRef `json:"targetRef,omitempty"`
	Default   MTPConf    `json:"default"`
}

// MTPConf carries the action of a `from` item.
type MTPConf struct {
	Action string `json:"action,omitempty"`
}

// MTPRule is one element of Kuma's `spec.rules` for MeshTrafficPermission.
type MTPRule struct {
	Default MTPMatches `json:"default"`
}

// MTPMatches are the three matcher lists of the SPIFFE-matches MADR. Pointers distinguish an
// explicitly empty list from an absent one.
type MTPMatches struct {
	Deny                *[]SpiffeMatch `json:"deny,omitempty"`
	AllowWithShadowDeny *[]SpiffeMatch `json:"allowWithShadowDeny,omitempty"`
	Allow               *[]SpiffeMatch `json:"allow,omitempty"`
}

// SpiffeMatch is one matcher: a SPIFFE ID condition plus the seed's optional HTTP
// conditions. Kuma spells the key `spiffeID`, the seed `spiffeId`; both are accepted.
type SpiffeMatch struct {
	SpiffeId *StringMatch `json:"spiffeId,omitempty"` //nolint:revive // the SPIFFE-matches MADR spelling
	SpiffeID *StringMatch `json:"spiffeID,omitempty"`
	SNI      *StringMatch `json:"sni,omitempty"`
	Method   string       `json:"method,omitempty"`
	Path     *StringMatch `json:"path,omitempty"`
}

// Spiffe returns the matcher's SPIFFE condition and the key it was written under.
func (m SpiffeMatch) Spiffe() (*StringMatch, string) {
	if m.SpiffeID != nil {
		return m.SpiffeID, "spiffeID"
	}
	if m.SpiffeId != nil {
		return m.SpiffeId, "spiffeId"
	}
	return nil, ""
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
