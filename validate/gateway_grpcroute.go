package validate

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// gwGRPCRoute applies Linkerd's admission rules to a GRPCRoute parented to Linkerd:
// EgressNetwork parents name a port, the gRPC retry and timeout annotations parse,
// method matches are Exact (Linkerd has no regular-expression method match), header
// matches and modifiers are valid HTTP, Service backends name a port.
func (v *validator) gwGRPCRoute(s *api.GatewayGRPCRouteSpec, obj *unstructured.Unstructured, p *field.Path) {
	v.lkParents(s.ParentRefs, p.Child("parentRefs"))
	if v.lkMeshParent(s.ParentRefs) {
		v.lkRouteAnnotations(obj, true)
	}
	for i, r := range s.Rules {
		rp := p.Child("rules").Index(i)
		for j, m := range r.Matches {
			mp := rp.Child("matches").Index(j)
			if m.Method != nil && m.Method.Type == "RegularExpression" {
				v.err(field.NotSupported(mp.Child("method", "type"), m.Method.Type, []string{"Exact"}), CodeLinkerdRouteMatch)
				v.res.Errors[len(v.res.Errors)-1].Detail = "Linkerd matches gRPC methods exactly only; use type: Exact with a service and/or method"
			}
			v.lkHTTPMatch(api.HTTPRouteMatch{Headers: m.Headers}, mp)
		}
		for j, f := range r.Filters {
			fp := rp.Child("filters").Index(j)
			v.lkHeaderModifier(f.RequestHeaderModifier, fp.Child("requestHeaderModifier"))
			v.lkHeaderModifier(f.ResponseHeaderModifier, fp.Child("responseHeaderModifier"))
		}
		v.lkBackends(r.BackendRefs, rp.Child("backendRefs"))
	}
}
