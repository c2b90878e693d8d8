package validate

import (
	"reflect"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// kindRules are one kind's own rules, run on its typed spec (the type the
// registry's api.Kind.NewSpec returns) at path p.
type kindRules func(v *validator, spec any, p *field.Path)

// rulesTable is the one place a kind is tied to its rules: one row per typed
// spec, whose rules live in validate/<mesh>_<kind>.go. A new kind is its types
// in api/, its rules file and one row here; TestEveryKindHasARow holds every
// registered kind to a row. It is built once and only read.
var rulesTable = map[reflect.Type]kindRules{
	// Kuma targetRef policies: the rules every policy shares (policy), then the
	// kind's own. MeshTrafficPermission and the routes apply the shared rules
	// in their own order.
	specType[api.MeshTrafficPermissionSpec]():     row((*validator).mtp),
	specType[api.MeshHTTPRouteSpec]():             row((*validator).httpRoute),
	specType[api.MeshTCPRouteSpec]():              row((*validator).tcpRoute),
	specType[api.MeshAccessLogSpec]():             policyRules((*validator).meshAccessLog),
	specType[api.MeshTraceSpec]():                 policyRules((*validator).meshTrace),
	specType[api.MeshMetricSpec]():                policyRules((*validator).meshMetric),
	specType[api.MeshTimeoutSpec]():               policyRules((*validator).meshTimeout),
	specType[api.MeshCircuitBreakerSpec]():        policyRules((*validator).meshCircuitBreaker),
	specType[api.MeshHealthCheckSpec]():           policyRules((*validator).meshHealthCheck),
	specType[api.MeshRetrySpec]():                 policyRules((*validator).meshRetry),
	specType[api.MeshRateLimitSpec]():             policyRules((*validator).meshRateLimit),
	specType[api.MeshFaultInjectionSpec]():        policyRules((*validator).meshFaultInjection),
	specType[api.MeshPassthroughSpec]():           policyRules((*validator).meshPassthrough),
	specType[api.MeshProxyPatchSpec]():            policyRules((*validator).meshProxyPatch),
	specType[api.MeshTLSSpec]():                   policyRules((*validator).meshTLS),
	specType[api.MeshLoadBalancingStrategySpec](): policyRules((*validator).meshLoadBalancingStrategy),

	// Kuma resources.
	specType[api.MeshSpec]():                     row((*validator).mesh),
	specType[api.MeshServiceSpec]():              row((*validator).meshService),
	specType[api.MeshExternalServiceSpec]():      row((*validator).meshExternalService),
	specType[api.MeshMultiZoneServiceSpec]():     row((*validator).meshMultiZoneService),
	specType[api.HostnameGeneratorSpec]():        row((*validator).hostnameGenerator),
	specType[api.MeshOpenTelemetryBackendSpec](): row((*validator).meshOpenTelemetryBackend),
	specType[api.WorkloadSpec]():                 row((*validator).workload),
	specType[api.MeshGatewaySpec]():              row((*validator).meshGateway),
	specType[api.MeshGatewayRouteSpec]():         row((*validator).meshGatewayRoute),
	specType[api.MeshIdentitySpec]():             row((*validator).meshIdentity),
	specType[api.MeshTrustSpec]():                row((*validator).meshTrust),
	specType[api.MeshGatewayInstanceSpec]():      row((*validator).meshGatewayInstance),
	specType[api.DataplaneSpec]():                row((*validator).dataplane),
	// Kinds whose CRD schema is everything Kuma checks (MeshZoneAddress: a
	// non-empty address and a port in 1-65535, minLength and the port bounds in
	// the CRD; MeshGatewayConfig: Kubernetes-only, no validator in Kuma).
	specType[api.MeshZoneAddressSpec]():   schemaOnly,
	specType[api.MeshGatewayConfigSpec](): schemaOnly,

	// Linkerd (policy.linkerd.io) and the Gateway API routes it reads.
	specType[api.ServerSpec](): row(func(v *validator, s *api.ServerSpec, p *field.Path) {
		v.lkServer(s.PodSelector, s.ExternalWorkloadSelector, true, s.Port, s.ProxyProtocol, s.AccessPolicy, p)
	}),
	specType[api.ServerV1Beta2Spec](): row(func(v *validator, s *api.ServerV1Beta2Spec, p *field.Path) {
		v.lkServer(s.PodSelector, s.ExternalWorkloadSelector, true, s.Port, s.ProxyProtocol, "", p)
	}),
	specType[api.ServerV1Beta1Spec](): row(func(v *validator, s *api.ServerV1Beta1Spec, p *field.Path) {
		v.lkServer(s.PodSelector, nil, false, s.Port, s.ProxyProtocol, "", p)
	}),
	specType[api.ServerAuthorizationSpec]():      row((*validator).lkServerAuthorization),
	specType[api.MeshTLSAuthenticationSpec]():    row((*validator).lkMeshTLSAuthentication),
	specType[api.NetworkAuthenticationSpec]():    row((*validator).lkNetworkAuthentication),
	specType[api.EgressNetworkSpec]():            row((*validator).lkEgressNetwork),
	specType[api.HTTPLocalRateLimitPolicySpec](): row((*validator).lkRateLimit),
	specType[api.AuthorizationPolicySpec](): row(func(v *validator, s *api.AuthorizationPolicySpec, p *field.Path) {
		v.lkAuthorizationPolicy(s, v.spec, p)
	}),
	specType[api.LinkerdHTTPRouteSpec](): row(func(v *validator, s *api.LinkerdHTTPRouteSpec, p *field.Path) {
		v.lkHTTPRoute(s, v.obj, p)
	}),
	specType[api.GatewayHTTPRouteSpec](): row(func(v *validator, s *api.GatewayHTTPRouteSpec, p *field.Path) {
		v.gwHTTPRoute(s, v.obj, p)
	}),
	specType[api.GatewayGRPCRouteSpec](): row(func(v *validator, s *api.GatewayGRPCRouteSpec, p *field.Path) {
		v.gwGRPCRoute(s, v.obj, p)
	}),
	specType[api.GatewayTCPRouteSpec](): row((*validator).gwTCPRoute),
	specType[api.GatewayTLSRouteSpec](): row((*validator).gwTLSRoute),
}

// schemaOnly is the row of a kind the CRD schema (the schema layer) checks
// completely: it has no rules of its own.
func schemaOnly(*validator, any, *field.Path) {}

// specType is the pointer type a kind's NewSpec returns for spec type T.
func specType[T any]() reflect.Type { return reflect.TypeFor[*T]() }

// row adapts a kind's typed rule function to a row.
func row[T any](f func(*validator, *T, *field.Path)) kindRules {
	return func(v *validator, spec any, p *field.Path) {
		if s, ok := spec.(*T); ok {
			f(v, s, p)
		}
	}
}

// policyRules is a Kuma policy's row: the rules every policy shares, then f.
func policyRules[T any, PT interface {
	*T
	api.Targeted
}](f func(*validator, PT, *field.Path)) kindRules {
	return func(v *validator, spec any, p *field.Path) {
		if s, ok := spec.(PT); ok {
			v.policy(s, p)
			f(v, s, p)
		}
	}
}

// runKindRules runs the row of typed's kind (every registered kind has one:
// TestEveryKindHasARow).
func (v *validator) runKindRules(typed any, p *field.Path) {
	if r, ok := rulesTable[reflect.TypeOf(typed)]; ok {
		r(v, typed, p)
	}
}
