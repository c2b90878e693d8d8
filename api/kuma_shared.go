package api

import (
	"strconv"
	"strings"
)

// KumaRules are the options in which Kuma's per-policy validators differ while
// applying the same shared rules: which sections exclude each other, which are
// required, in which scope a section is refused, how rules' matches are checked.
// The values follow Kuma 2.14.3's validator.go of each policy; the fields that end
// in Before say where an older release (Settings.KumaVersion) refuses more.
type KumaRules struct {
	// ListenerTags allows tags (listener tags) on a top-level MeshGateway targetRef
	// (Kuma's GatewayListenerTagsAllowed).
	ListenerTags bool
	// RulesExclude are the sections that must be empty when `rules` is set.
	RulesExclude Section
	// Require are the sections of which at least one must be non-empty; when zero,
	// Kuma accepts a policy with none, which meshguard only warns about.
	Require Section
	// ItemDefault requires `default` in every to/from/rules item: Kuma decodes an
	// absent default as the empty conf, which the kind's validator refuses.
	ItemDefault bool
	// Default requires the single spec.default, for the same reason.
	Default bool
	// Matches says how rules[].matches are checked.
	Matches MatchCheck
	// FromForbidden, ToForbidden and RulesForbidden are the top-level scopes in
	// which Kuma refuses a non-empty from, to or rules section.
	FromForbidden, ToForbidden, RulesForbidden Scope
	// ToRequiredBefore, when set, is the Kuma release from which `to` may be empty:
	// the releases before it refuse a policy without `to` items ("needs at least one
	// item": MeshRetry and MeshLoadBalancingStrategy in Kuma 2.13, which 2.14
	// accepts as an override that disables the kind's configuration).
	ToRequiredBefore string
	// ExternalToMeshOnlyBefore, when set, is the Kuma release from which a `to`
	// item may name a MeshExternalService under any top-level targetRef: the
	// releases before it accept one only under a Mesh top-level targetRef (Kuma 2.13's
	// MeshHealthCheck and MeshCircuitBreaker, which configure it on the Zone Egress).
	ExternalToMeshOnlyBefore string
	// FromRemovedSince, when set, is the Kuma release that removed `from` from the
	// kind (Kuma 3.0: MeshAccessLog, MeshCircuitBreaker, MeshFaultInjection,
	// MeshRateLimit, MeshTimeout, MeshTLS, MeshTrafficPermission): its CRD no longer
	// has the section, so the API server prunes it (or kubectl apply refuses it) and
	// Kuma never reads it. Kind.SectionsIn reads it.
	FromRemovedSince string
}

// KumaBefore reports whether Kuma release version ("2.13") is older than release
// ("2.14"): the test every release-aware rule makes. An empty version is the
// default release; versions compare by their numeric parts. A pre-release
// ("3.0-preview", Kuma's main branch at a pinned commit) carries the rules of the
// release it leads to: it orders after 2.14 and is not before "3.0", so a rule
// written "since 3.0" holds for it and needs no change when 3.0 is tagged.
func KumaBefore(version, release string) bool {
	if version == "" {
		version = DefaultKumaVersion
	}
	// Part by part, as strings.Split would give them, without allocating:
	// every rule of every document asks.
	a, b := kumaNumber(version), kumaNumber(release)
	for {
		x, restA, moreA := strings.Cut(a, ".")
		y, restB, moreB := strings.Cut(b, ".")
		nx, errX := strconv.Atoi(x)
		ny, errY := strconv.Atoi(y)
		if errX != nil || errY != nil {
			return x < y
		}
		if nx != ny {
			return nx < ny
		}
		if !moreA || !moreB {
			return !moreA && moreB // the version with fewer parts is before
		}
		a, b = restA, restB
	}
}

// kumaNumber is a version without its pre-release suffix: "3.0" of "3.0-preview".
func kumaNumber(version string) string {
	n, _, _ := strings.Cut(version, "-")
	return n
}

// MatchCheck is how strictly a kind's validator checks rules[].matches.
type MatchCheck uint8

// The levels of MatchCheck.
const (
	// MatchSyntax checks each spiffeID and sni condition's syntax only.
	MatchSyntax MatchCheck = iota
	// MatchStrict also requires one of spiffeID or sni and a spiffeID type.
	MatchStrict
)

// Scope is a condition on the top-level targetRef under which Kuma refuses a
// section of a policy.
type Scope uint8

// The scopes Kuma's validators test.
const (
	// ScopeNever never holds.
	ScopeNever Scope = iota
	// ScopeGatewayOrRoute holds when the top-level kind is MeshGateway or MeshHTTPRoute.
	ScopeGatewayOrRoute
	// ScopeGateways holds when the policy may apply to gateways: a MeshGateway or
	// MeshHTTPRoute target, or Mesh/MeshSubset whose proxyTypes are absent or
	// include Gateway (Kuma's IncludesGateways). An absent targetRef is Mesh.
	ScopeGateways
	// ScopeSidecarsOnly is the opposite of ScopeGateways.
	ScopeSidecarsOnly
)

// Holds reports whether the scope holds for the top-level targetRef top.
func (s Scope) Holds(top *TargetRef) bool {
	switch s {
	case ScopeGatewayOrRoute:
		return top != nil && (top.Kind == RefMeshGateway || top.Kind == RefMeshHTTPRoute)
	case ScopeGateways:
		return IncludesGateways(top)
	case ScopeSidecarsOnly:
		return !IncludesGateways(top)
	}
	return false
}

// IncludesGateways reports whether a policy with this top-level targetRef may
// configure gateways (Kuma's IncludesGateways); nil is kind Mesh.
func IncludesGateways(top *TargetRef) bool {
	if top == nil {
		return true
	}
	switch top.Kind {
	case RefMeshGateway, RefMeshHTTPRoute:
		return true
	case "", RefMesh, RefMeshSubset: // an empty kind is Mesh
		if len(top.ProxyTypes) == 0 {
			return true
		}
		for _, t := range top.ProxyTypes {
			if t == "Gateway" {
				return true
			}
		}
	}
	return false
}

// kumaShared returns the KumaRules of a Kuma policy kind (zero for a kind without
// options), read off each policy's validator.go in Kuma 2.14.3; the fields that end
// in Before carry what Kuma 2.13.10's validators refuse beyond that, and those that
// end in Since what Kuma 3.0 (--kuma-version 3.0-preview) removed.
func kumaShared(kind string) KumaRules {
	const toFrom, all = SecTo | SecFrom, SecTo | SecFrom | SecRules
	switch kind {
	case KindMeshTrafficPermission:
		// 'from' with 'rules' is MeshTrafficPermission's own MG121.
		return KumaRules{Require: SecFrom | SecRules, ItemDefault: true, FromRemovedSince: Kuma30}
	case KindMeshTimeout:
		return KumaRules{ListenerTags: true, RulesExclude: toFrom, Require: all, ItemDefault: true,
			Matches: MatchStrict, FromForbidden: ScopeGatewayOrRoute, FromRemovedSince: Kuma30}
	case "MeshRateLimit":
		return KumaRules{ListenerTags: true, RulesExclude: toFrom, ItemDefault: true, Matches: MatchStrict,
			FromForbidden: ScopeGateways, ToForbidden: ScopeSidecarsOnly, RulesForbidden: ScopeGateways, FromRemovedSince: Kuma30}
	case "MeshFaultInjection":
		return KumaRules{ListenerTags: true, RulesExclude: SecFrom, FromForbidden: ScopeGateways, ToForbidden: ScopeSidecarsOnly,
			FromRemovedSince: Kuma30}
	case "MeshCircuitBreaker":
		return KumaRules{ListenerTags: true, RulesExclude: toFrom, Require: all, ItemDefault: true, ExternalToMeshOnlyBefore: "2.14",
			FromRemovedSince: Kuma30}
	case "MeshAccessLog":
		// No ItemDefault: the CRD itself requires default in MeshAccessLog items.
		return KumaRules{ListenerTags: true, RulesExclude: toFrom, Require: all, FromRemovedSince: Kuma30}
	case "MeshRetry":
		return KumaRules{ListenerTags: true, ItemDefault: true, ToRequiredBefore: "2.14"}
	case "MeshHealthCheck":
		return KumaRules{ListenerTags: true, ItemDefault: true, ExternalToMeshOnlyBefore: "2.14"}
	case "MeshLoadBalancingStrategy":
		return KumaRules{ListenerTags: true, ToRequiredBefore: "2.14"}
	case "MeshHTTPRoute", "MeshTCPRoute", "MeshMetric":
		return KumaRules{ListenerTags: true}
	case "MeshTrace", "MeshProxyPatch":
		return KumaRules{Default: true}
	case "MeshTLS":
		return KumaRules{RulesExclude: SecFrom, FromRemovedSince: Kuma30}
	}
	return KumaRules{} // MeshPassthrough
}
