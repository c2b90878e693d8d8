package kumainspect

import "github.com/meshguard/meshguard/kumarules"

// The JSON shapes of Kuma 2.14's inspect API (api/openapi/types in kumahq/kuma):
// field names, which fields are omitted when empty, which are written as null.

// meta is a resource's identity (api_common.Meta): labels are {} rather than null.
type meta struct {
	Labels map[string]string `json:"labels"`
	Mesh   string            `json:"mesh"`
	Name   string            `json:"name"`
	Type   string            `json:"type"`
}

type ruleMatcher struct {
	Key   string `json:"key"`
	Not   bool   `json:"not"`
	Value string `json:"value"`
}

// subsetRule is a legacy rule (api_common.Rule): the conf for the proxies its
// matchers select, and the policies merged into it.
type subsetRule struct {
	Conf     any           `json:"conf"`
	Matchers []ruleMatcher `json:"matchers"`
	Origin   []meta        `json:"origin"`
}

type inboundRef struct {
	Name *string           `json:"name,omitempty"`
	Port int               `json:"port"`
	Tags map[string]string `json:"tags"`
}

type fromRule struct {
	Inbound inboundRef   `json:"inbound"`
	Rules   []subsetRule `json:"rules"`
}

type ruleOrigin struct {
	ResourceMeta *meta `json:"resourceMeta,omitempty"`
	RuleIndex    *int  `json:"ruleIndex,omitempty"`
}

type inboundRule struct {
	Conf   []any        `json:"conf"`
	Match  any          `json:"match,omitempty"`
	Origin []ruleOrigin `json:"origin"`
}

type inboundRulesEntry struct {
	Inbound inboundRef    `json:"inbound"`
	Rules   []inboundRule `json:"rules"`
}

type resourceRule struct {
	Conf                []any        `json:"conf"`
	Origin              []ruleOrigin `json:"origin"`
	ResourceMeta        meta         `json:"resourceMeta"`
	ResourceSectionName *string      `json:"resourceSectionName,omitempty"`
}

type proxyRule struct {
	Conf   any    `json:"conf"`
	Origin []meta `json:"origin"`
}

// inspectRule is what one policy kind gives the proxy (api_common.InspectRule).
type inspectRule struct {
	FromRules       *[]fromRule          `json:"fromRules,omitempty"`
	InboundRules    *[]inboundRulesEntry `json:"inboundRules,omitempty"`
	ProxyRule       *proxyRule           `json:"proxyRule,omitempty"`
	ToResourceRules *[]resourceRule      `json:"toResourceRules,omitempty"`
	ToRules         *[]subsetRule        `json:"toRules,omitempty"`
	Type            string               `json:"type"`
	Warnings        *[]string            `json:"warnings,omitempty"`
}

type httpMatch struct {
	Hash  string `json:"hash"`
	Match any    `json:"match"`
}

// rulesResponse is the body of …/_rules (InspectRulesResponse).
type rulesResponse struct {
	HTTPMatches []httpMatch   `json:"httpMatches"`
	Resource    meta          `json:"resource"`
	Rules       []inspectRule `json:"rules"`
}

type policyOrigin struct {
	Kri string `json:"kri"`
}

// policyConf is one kind's merged conf in …/_policies and …/_outbounds/{kri}/_policies.
type policyConf struct {
	Conf    any            `json:"conf"`
	Kind    string         `json:"kind"`
	Origins []policyOrigin `json:"origins"`
}

type policiesList struct {
	Policies []policyConf `json:"policies"`
}

type policyRule struct {
	Conf any     `json:"conf"`
	Kri  *string `json:"kri,omitempty"`
}

// inboundPolicyConf is one kind's rules in …/_inbounds/{kri}/_policies.
type inboundPolicyConf struct {
	Kind    string         `json:"kind"`
	Origins []policyOrigin `json:"origins"`
	Rules   []policyRule   `json:"rules"`
}

type inboundPoliciesList struct {
	Policies []inboundPolicyConf `json:"policies"`
}

type routeRules struct {
	Conf    any    `json:"conf"`
	Kri     string `json:"kri"`
	Matches []any  `json:"matches"`
}

type routeConf struct {
	Kind    string         `json:"kind"`
	Origins []policyOrigin `json:"origins"`
	Rules   []routeRules   `json:"rules"`
}

type routesList struct {
	Routes []routeConf `json:"routes"`
}

type layoutInbound struct {
	Kri               string `json:"kri"`
	Port              int    `json:"port"`
	Protocol          string `json:"protocol"`
	ProxyResourceName string `json:"proxyResourceName"`
}

type layoutListener struct {
	Kri               string `json:"kri"`
	Port              int    `json:"port"`
	ProxyResourceName string `json:"proxyResourceName"`
	Type              string `json:"type"`
}

// layout is the body of …/_layout (DataplaneNetworkingLayout).
type layout struct {
	Inbounds  []layoutInbound   `json:"inbounds"`
	Kri       string            `json:"kri"`
	Labels    map[string]string `json:"labels"`
	Listeners []layoutListener  `json:"listeners"`
	Outbounds []layoutInbound   `json:"outbounds"`
	SpiffeID  *string           `json:"spiffeId,omitempty"`
}

// metaOf is a resource's meta as Kuma writes it (oapi_helpers.ResourceMetaToMeta).
func metaOf(m kumarules.Meta, typ string) meta {
	labels := m.Labels
	if labels == nil {
		labels = map[string]string{}
	}
	return meta{Labels: labels, Mesh: m.Mesh, Name: m.Name, Type: typ}
}
