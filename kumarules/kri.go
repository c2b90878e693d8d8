package kumarules

import (
	"strconv"
	"strings"

	"github.com/meshguard/meshguard/api"
)

// KRI is Kuma's resource identifier (kri_<type>_<mesh>_<zone>_<namespace>_<name>_<section>):
// resource rules are keyed by it, and Kuma's inspect API names resources with it.
type KRI struct {
	Type, Mesh, Zone, Namespace, Name, Section string
}

// kriShortNames are the KRI type abbreviations of the kinds resource rules name.
func kriShortName(typ string) string {
	switch typ {
	case api.KindMesh:
		return "m"
	case refMeshService:
		return "msvc"
	case refMeshExternalService:
		return "extsvc"
	case refMeshMultiZoneService:
		return "mzsvc"
	case refMeshHTTPRoute:
		return "mhttpr"
	case api.KindMeshTCPRoute:
		return "mtcpr"
	case api.KindDataplane:
		return "dp"
	case refMeshGateway:
		return "mgw"
	}
	return ""
}

// String is the KRI's text form.
func (k KRI) String() string {
	return strings.Join([]string{"kri", kriShortName(k.Type), k.Mesh, k.Zone, k.Namespace, k.Name, k.Section}, "_")
}

// kriOf is the identifier Kuma derives from an object's labels: zone, namespace and
// display name, so a synced copy (whose stored name carries a hash) keeps it.
func kriOf(o Policy, typ string) KRI {
	if kriShortName(typ) == "" {
		return KRI{}
	}
	mesh := o.Mesh
	if typ == api.KindMesh {
		mesh = ""
	}
	return KRI{Type: typ, Mesh: mesh, Zone: o.Labels[labelZone], Namespace: o.Labels[api.LabelNamespace], Name: o.DisplayName()}
}

// refKRI is the object a by-name targetRef of a policy names: the policy's mesh and
// zone, the ref's namespace or the policy's.
func refKRI(policy Policy, ref TargetRef) KRI {
	origin := kriOf(policy, ref.Kind)
	if origin == (KRI{}) {
		return KRI{}
	}
	if ref.Kind == refMesh {
		return KRI{Type: api.KindMesh, Name: policy.Mesh}
	}
	ns := ref.Namespace
	if ns == "" {
		ns = origin.Namespace
	}
	return KRI{Type: ref.Kind, Name: ref.Name, Mesh: origin.Mesh, Zone: origin.Zone, Namespace: ns}
}

// port is one port of a destination: its name (or number) and number.
type port struct {
	name  string
	value int
}

// portsOf lists a destination's ports (MeshService and MeshMultiZoneService
// spec.ports, MeshExternalService spec.match); ok is false for kinds without ports.
func portsOf(o Policy) (ports []port, ok bool) {
	switch o.Type {
	case refMeshService, refMeshMultiZoneService:
		list, _ := o.Spec["ports"].([]any)
		for _, e := range list {
			m, _ := e.(map[string]any)
			p := port{name: str(m["name"]), value: toInt(m["port"])}
			if _, has := m["name"]; !has || (o.Type == refMeshMultiZoneService && p.name == "") {
				p.name = strconv.Itoa(p.value)
			}
			ports = append(ports, p)
		}
		return ports, true
	case refMeshExternalService:
		m, _ := o.Spec["match"].(map[string]any)
		v := toInt(m["port"])
		return []port{{name: strconv.Itoa(v), value: v}}, true
	}
	return nil, false
}
