package validate

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// lkEgressNetwork applies Linkerd's admission rules to an EgressNetwork: networks,
// when set, lists at least one network (absent means every address outside the
// cluster), and each exception lies inside its cidr without covering it.
func (v *validator) lkEgressNetwork(s *api.EgressNetworkSpec, p *field.Path) {
	if s.Networks == nil {
		return
	}
	np := p.Child("networks")
	if len(*s.Networks) == 0 {
		v.err(field.Required(np, "list at least one network (cidr, optional except), or drop networks to mean every address outside the cluster; Linkerd rejects an empty list"), CodeLinkerdEgressNetwork)
		return
	}
	v.lkNetworks(*s.Networks, np)
}
