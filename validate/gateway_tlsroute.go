package validate

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// gwTLSRoute applies Linkerd's admission rules to a TLSRoute parented to Linkerd:
// EgressNetwork parents name a port and there is exactly one rule.
func (v *validator) gwTLSRoute(s *api.GatewayTLSRouteSpec, p *field.Path) {
	v.lkParents(s.ParentRefs, p.Child("parentRefs"))
	v.lkSingleRule(len(s.Rules), p.Child("rules"))
}
