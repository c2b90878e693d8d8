package validate

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// kumaAppProtocols are the protocols Kuma supports on a service port.
func kumaAppProtocols() []string { return []string{"grpc", "http", "http2", "kafka", "tcp"} }

// meshMultiZoneService mirrors Kuma's MeshMultiZoneService validator: it must select
// MeshServices by some labels and expose ports, each with a supported protocol and,
// when named, a name that is not empty.
func (v *validator) meshMultiZoneService(s *api.MeshMultiZoneServiceSpec, p *field.Path) {
	if ml := s.Selector.MeshService.MatchLabels; ml == nil || len(*ml) == 0 {
		v.err(field.Required(p.Child("selector", "meshService", "matchLabels"),
			"select the MeshServices to group by at least one label; Kuma refuses an empty selector"), CodeMeshMultiZoneService)
	}
	if len(s.Ports) == 0 {
		v.err(field.Required(p.Child("ports"), "list at least one port"), CodeMeshMultiZoneService)
	}
	for i, port := range s.Ports {
		pp := p.Child("ports").Index(i)
		if port.Name != nil && *port.Name == "" {
			v.err(field.Required(pp.Child("name"), "give the port a name or leave name out"), CodeMeshMultiZoneService)
		}
		// An absent appProtocol is the CRD's default, tcp.
		if port.AppProtocol != "" && !slices.Contains(kumaAppProtocols(), port.AppProtocol) {
			v.err(field.NotSupported(pp.Child("appProtocol"), port.AppProtocol, kumaAppProtocols()), CodeMeshMultiZoneService)
		}
	}
	v.dnsNameDeprecation(CodeMeshMultiZoneService)
	for i, port := range s.Ports {
		v.sniPortDeprecation("mzsvc", portName(port.Name, port.Port), p.Child("ports").Index(i), CodeMeshMultiZoneService)
	}
}
