package api

import (
	"regexp"
	"slices"
)

// Kuma30 is the release Kuma's 3.0 work leads to. The rules it changes are written
// "since Kuma30", so they hold for "3.0-preview" (Kuma's main branch at a pinned
// commit, which KumaBefore counts as 3.0) and will hold for 3.0 once tagged.
const Kuma30 = "3.0"

// KumaLabelsOnly reports whether Kuma release version selects real resources by
// labels only: its targetRefs and backendRefs have no name, namespace, mesh, tags or
// proxyTypes (Kuma #17756, #17761), so nothing may fill them in for the user (the
// mutating stage's namespace sugar) and a reference by name is refused.
func KumaLabelsOnly(version string) bool { return !KumaBefore(version, Kuma30) }

// SectionsIn are the sections kind k has in Kuma release version: Sections less
// `from` where the release removed it (KumaRules.FromRemovedSince). The rules that
// name what a policy may hold, and the sugar that fills `from` items, ask this
// rather than Sections, so that the removal lives in one place.
func (k *Kind) SectionsIn(version string) Section {
	s := k.Sections
	if since := k.Shared.FromRemovedSince; since != "" && !KumaBefore(version, since) {
		s &^= SecFrom
	}
	return s
}

// KumaRemovedKind says, for a kuma.io kind that Kuma release version no longer
// serves because the release removed it, what to use instead, as the release's
// UPGRADE.md says; ok is false for a kind the release has not removed. MG005 (the
// API server's "no matches for kind") carries the advice, so that a repository
// linted with --kuma-version 3.0-preview learns what to write, not only that the
// object is refused.
func KumaRemovedKind(version, kind string) (instead string, ok bool) {
	if KumaBefore(version, Kuma30) {
		return "", false
	}
	const gateway = "Kuma 3.0 removed the built-in gateway (MeshGateway, MeshGatewayRoute, MeshGatewayInstance, MeshGatewayConfig): " +
		"delete it before upgrading and run a delegated gateway (your own Deployment and Service in front of a Kuma-injected Pod annotated kuma.io/gateway: enabled or provided)"
	switch kind {
	case KindMeshGateway, string(RefMeshGatewayRoute), "MeshGatewayInstance", "MeshGatewayConfig":
		return gateway, true
	case "ExternalService":
		return "Kuma 3.0 removed ExternalService: write a MeshExternalService", true
	case "ZoneIngress", "ZoneEgress", "ZoneIngressInsight", "ZoneEgressInsight":
		return "Kuma 3.0 removed the standalone zone proxies: a zone proxy is a Dataplane with zone proxy listeners " +
			"(the chart's meshes[].ingress and meshes[].egress); delete it before upgrading", true
	}
	if repl, ok := kumaLegacyPolicies()[kind]; ok {
		return "Kuma 3.0 removed the legacy policy " + kind + ": write a " + repl + " (a targetRef policy)", true
	}
	return "", false
}

// kumaLegacyPolicies maps the twelve legacy policies Kuma 3.0 removed ("Legacy
// policy resources removed") to the targetRef policies that replace them.
func kumaLegacyPolicies() map[string]string {
	return map[string]string{
		"TrafficPermission": KindMeshTrafficPermission, "TrafficRoute": "MeshHTTPRoute or MeshTCPRoute",
		"TrafficLog": "MeshAccessLog", "TrafficTrace": "MeshTrace", "HealthCheck": "MeshHealthCheck",
		"CircuitBreaker": "MeshCircuitBreaker", "Retry": "MeshRetry", "Timeout": KindMeshTimeout,
		"RateLimit": "MeshRateLimit", "FaultInjection": "MeshFaultInjection",
		"VirtualOutbound": "HostnameGenerator", "ProxyTemplate": "MeshProxyPatch",
	}
}

// kumaAdvice is one piece of a release's upgrade notes: for a schema finding whose
// path (indices written []) matches path, in one of kinds (every kind when nil),
// what to write instead.
type kumaAdvice struct {
	since string
	kinds []string
	path  *regexp.Regexp
	say   string
}

// kumaAdvices are what Kuma 3.0's UPGRADE.md says to write instead of what its CRDs
// no longer accept. The CRDs are the rule (the schema layer refuses or prunes the
// field); these are the words the finding adds.
func kumaAdvices() []kumaAdvice {
	labels := "Kuma 3.0 selects by labels only: write labels (e.g. kuma.io/display-name: NAME, k8s.kuma.io/namespace: NAMESPACE)"
	return []kumaAdvice{
		{Kuma30, []string{KindMeshTrafficPermission}, regexp.MustCompile(`^spec\.from$`),
			"Kuma 3.0 removed 'from': write 'rules' whose allow/deny matchers name the clients' SPIFFE IDs (spiffeID, from MeshIdentity)"},
		{Kuma30, nil, regexp.MustCompile(`^spec\.from$`),
			"Kuma 3.0 removed 'from': write 'rules' (a from item targeting Mesh becomes one rule with its default)"},
		{Kuma30, nil, regexp.MustCompile(`^spec\.targetRef\.kind$`),
			"Kuma 3.0 takes kind Mesh (the whole mesh) or Dataplane with labels (what MeshSubset, MeshService or MeshServiceSubset selected; MeshGateway went with the built-in gateway)"},
		{Kuma30, nil, regexp.MustCompile(`^spec\.to\[\]\.targetRef\.kind$`),
			"Kuma 3.0 refuses MeshSubset, MeshServiceSubset and MeshGateway in 'to': name the MeshService, MeshExternalService or MeshMultiZoneService by labels"},
		{Kuma30, nil, regexp.MustCompile(`(backendRefs\[\]|backendRef)\.kind$`),
			"Kuma 3.0 routes to a MeshService, MeshExternalService or MeshMultiZoneService only: point at the real resource by labels and port"},
		{Kuma30, nil, regexp.MustCompile(`(targetRef|backendRefs\[\]|backendRef)\.(name|namespace)$`), labels},
		{Kuma30, nil, regexp.MustCompile(`(targetRef|backendRefs\[\]|backendRef)\.tags$`),
			"Kuma 3.0 has no tag selection: select Dataplanes or services by labels"},
		{Kuma30, nil, regexp.MustCompile(`(targetRef|backendRefs\[\]|backendRef)\.mesh$`), "Kuma 3.0 removed targetRef.mesh"},
		{Kuma30, nil, regexp.MustCompile(`targetRef\.proxyTypes$`),
			"Kuma 3.0 removed proxyTypes: select the proxies with kind Dataplane and labels"},
		{Kuma30, []string{"MeshHealthCheck"}, regexp.MustCompile(`\.healthyPanicThreshold$`),
			"Kuma 3.0 removed it: set to[].default.outlierDetection.healthyPanicThreshold in a MeshCircuitBreaker"},
		{Kuma30, []string{"MeshMetric", "MeshAccessLog", "MeshTrace"}, regexp.MustCompile(`openTelemetry\.endpoint$`),
			"Kuma 3.0 removed the inline endpoint: create a MeshOpenTelemetryBackend and set openTelemetry.backendRef"},
		{Kuma30, []string{"MeshLoadBalancingStrategy"}, regexp.MustCompile(`loadBalancer\.(ringHash|maglev)\.hashPolicies$`),
			"Kuma 3.0 removed it: move hashPolicies to to[].default.hashPolicies"},
		{Kuma30, []string{"MeshService"}, regexp.MustCompile(`^spec\.selector\.dataplaneTags$`),
			"Kuma 3.0 removed dataplaneTags: write selector.dataplaneLabels.matchLabels"},
	}
}

// indexRE matches a list index in a field path.
var indexRE = regexp.MustCompile(`\[\d+\]`)

// KumaFieldAdvice says what Kuma release version's upgrade notes tell to write
// instead of the field at path (spec.from, spec.to[0].targetRef.name) of kind,
// which the release's CRD no longer accepts; "" when they say nothing, or the
// release is one before the change. The schema layer adds it to MG001 and MG002.
func KumaFieldAdvice(version, kind, path string) string {
	norm := indexRE.ReplaceAllString(path, "[]")
	for _, a := range kumaAdvices() {
		if KumaBefore(version, a.since) || (a.kinds != nil && !slices.Contains(a.kinds, kind)) {
			continue
		}
		if a.path.MatchString(norm) {
			return a.say
		}
	}
	return ""
}

// SharedIn are the kind's KumaRules in Kuma release version: Shared, with what Kuma
// 3.0's validators changed beyond removing `from` (MeshCircuitBreaker takes `rules`
// beside `to`; MeshRateLimit needs one of `to` or `rules`).
func (k *Kind) SharedIn(version string) KumaRules {
	sh := k.Shared
	if KumaBefore(version, Kuma30) || k.Group != KumaGroup {
		return sh
	}
	switch k.Kind {
	case KindMeshCircuitBreaker:
		sh.RulesExclude = 0
	case KindMeshRateLimit:
		sh.Require = SecTo | SecRules
	}
	return sh
}

// ToKindsIn are the kinds a `to` item may name under top-level kind top in Kuma
// release version: ToKinds, and from Kuma 3.0 a MeshLoadBalancingStrategy `to` may
// name a MeshExternalService (configured on the zone proxy that egresses to it).
func (k *Kind) ToKindsIn(top RefKind, version string) []RefKind {
	kinds := k.ToKinds(top)
	if k.Kind == KindMeshLoadBalancingStrategy && !KumaBefore(version, Kuma30) && !containsRef(kinds, RefMeshExternalService) {
		kinds = append(append([]RefKind{}, kinds...), RefMeshExternalService)
	}
	return kinds
}

// MirrorRefsIn are the kinds a route's requestMirror.backendRef may name in Kuma
// release version: MirrorRefs, and from Kuma 3.0 the real resources a backendRef
// names (MeshService, MeshExternalService, MeshMultiZoneService) instead of
// MeshServiceSubset.
func (k *Kind) MirrorRefsIn(version string) []RefKind {
	if KumaBefore(version, Kuma30) || len(k.MirrorRefs) == 0 {
		return k.MirrorRefs
	}
	return []RefKind{RefMeshService, RefMeshExternalService, RefMeshMultiZoneService}
}

// TopLevelIn are the kinds a top-level targetRef may name in Kuma release version:
// TopLevel, narrowed by Kuma 3.0 (#17422) to Mesh and Dataplane, which its
// validators refuse as "value 'MeshService' is not supported" even where no CRD
// answers (a Universal document).
func (k *Kind) TopLevelIn(version string) []RefKind {
	if KumaBefore(version, Kuma30) || k.Group != KumaGroup {
		return k.TopLevel
	}
	var out []RefKind
	for _, r := range k.TopLevel {
		if r == RefMesh || r == RefDataplane {
			out = append(out, r)
		}
	}
	return out
}
