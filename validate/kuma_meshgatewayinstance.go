package validate

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// meshGatewayInstance applies Kuma's MeshGatewayInstance webhook: a global control
// plane refuses to create one (gateways run in zones), and the tags the proxies get
// are valid tags without kuma.io/service, which Kuma derives from the instance.
func (v *validator) meshGatewayInstance(s *api.MeshGatewayInstanceSpec, p *field.Path) {
	if v.s.Mode == api.ModeGlobal && v.req.Operation == api.OpCreate && !v.req.Privileged {
		v.err(field.Forbidden(field.NewPath("kind"),
			"a global control plane refuses to create MeshGatewayInstances: gateways are deployed in zones; apply it on the zone's control plane"), CodeMeshGatewayInstance)
	}
	tp := p.Child("tags")
	for _, k := range sortedKeys(s.Tags) {
		val := s.Tags[k]
		if k == "" {
			v.err(field.Invalid(tp, k, "a tag name must not be empty"), CodeMeshGatewayInstance)
		}
		if !tagChars(k, true) {
			v.err(field.Invalid(tp.Key(k), k, "a tag name may only contain letters, digits, '.', '-', '_', ':' and '/'"), CodeMeshGatewayInstance)
		}
		if val == "" {
			v.err(field.Invalid(tp.Key(k), val, "a tag value must not be empty"), CodeMeshGatewayInstance)
		} else if !tagChars(val, false) {
			v.err(field.Invalid(tp.Key(k), val, "a tag value may only contain letters, digits, '.', '-', '_' and ':'"), CodeMeshGatewayInstance)
		}
	}
	if _, ok := s.Tags["kuma.io/service"]; ok {
		v.err(field.Forbidden(tp.Key("kuma.io/service"), fmt.Sprintf(
			"Kuma names the gateway's service itself (from the instance's name and namespace); remove the tag and select the gateway by %q in the MeshGateway", "kuma.io/service")), CodeMeshGatewayInstance)
	}
}
