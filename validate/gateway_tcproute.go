package validate

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// gwTCPRoute applies Linkerd's admission rules to a TCPRoute parented to Linkerd:
// EgressNetwork parents name a port and there is exactly one rule.
func (v *validator) gwTCPRoute(s *api.GatewayTCPRouteSpec, p *field.Path) {
	v.lkParents(s.ParentRefs, p.Child("parentRefs"))
	v.lkSingleRule(len(s.Rules), p.Child("rules"))
}
