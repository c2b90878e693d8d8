package validate

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// gwHTTPRoute applies Linkerd's admission rules to a Gateway API HTTPRoute parented to
// Linkerd: as its own HTTPRoute (parents, annotations, matches, filters), plus Service
// backends that name a port; nothing of it when Linkerd cannot read the route
// (gwReadable).
func (v *validator) gwHTTPRoute(s *api.GatewayHTTPRouteSpec, obj *unstructured.Unstructured, p *field.Path) {
	if !v.gwReadable(s, p) {
		return
	}
	v.lkParents(s.ParentRefs, p.Child("parentRefs"))
	if v.lkMeshParent(s.ParentRefs) {
		v.lkRouteAnnotations(obj, false)
	}
	for i, r := range s.Rules {
		rp := p.Child("rules").Index(i)
		v.lkHTTPRule(r.Matches, r.Filters, rp)
		v.lkBackends(r.BackendRefs, rp.Child("backendRefs"))
	}
}
