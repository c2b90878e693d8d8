package kumainspect

import (
	"sort"
	"strconv"
	"strings"

	"github.com/meshguard/meshguard/api"
)

// layout answers …/dataplanes/{name}/_layout: the proxy's inbounds, embedded zone
// proxy listeners and the outbounds it can reach, each with its KRI and the name
// of the Envoy resource it becomes.
func (s *Store) layout(mesh, name string) Response {
	m, found := s.find(api.KindMesh, "", mesh)
	if !found {
		return notFound("Failed to build MeshContext")
	}
	if !meshServicesExclusive(m) {
		return badRequest("can't use _layout endpoint without meshService enabled")
	}
	dp, found := s.find(api.KindDataplane, mesh, name)
	if !found {
		return notFound("Failed to retrieve Dataplane")
	}
	self := kriOf(dp.Meta, api.KindDataplane)
	nw, _ := dp.Spec["networking"].(map[string]any)
	out := layout{Inbounds: []layoutInbound{}, Listeners: []layoutListener{}, Kri: s.types.kriString(self), Labels: dp.Labels}
	for _, e := range list(nw["inbound"]) {
		in, _ := e.(map[string]any)
		section := sectionName(in)
		id := self
		id.Section = section
		protocol := str(in["protocol"])
		if protocol == "" {
			protocol = stringMap(in["tags"])["kuma.io/protocol"]
		}
		out.Inbounds = append(out.Inbounds, layoutInbound{Kri: s.types.kriString(id), Port: toInt(in["port"]),
			Protocol: protocol, ProxyResourceName: "self_inbound_dp_" + section})
	}
	for _, e := range list(nw["listeners"]) {
		l, _ := e.(map[string]any)
		var prefix string
		switch str(l["type"]) {
		case api.KindZoneIngress:
			prefix = "self_zoneingress_dp_"
		case api.KindZoneEgress:
			prefix = "self_zoneegress_dp_"
		default:
			continue
		}
		id := self
		id.Section = sectionName(l)
		out.Listeners = append(out.Listeners, layoutListener{Kri: s.types.kriString(id), Type: str(l["type"]),
			Port: toInt(l["port"]), ProxyResourceName: prefix + id.Section})
	}
	out.Outbounds = []layoutInbound{}
	for id, p := range s.reachable(dp) {
		k := s.types.kriString(id)
		out.Outbounds = append(out.Outbounds, layoutInbound{Kri: k, Port: p.value, Protocol: p.protocol, ProxyResourceName: k})
	}
	sort.SliceStable(out.Outbounds, func(i, j int) bool { return out.Outbounds[i].Kri < out.Outbounds[j].Kri })
	out.SpiffeID = s.spiffeID(dp)
	return ok(out)
}

// sectionName is how a targetRef's sectionName names an inbound or listener: its
// name, else its port.
func sectionName(m map[string]any) string {
	if n := str(m["name"]); n != "" {
		return n
	}
	return strconv.Itoa(toInt(m["port"]))
}

// destPort is one port of a destination (MeshService, MeshExternalService,
// MeshMultiZoneService).
type destPort struct {
	name     string
	value    int
	protocol string
}

// portsOf lists a destination's ports as Kuma's core.Destination does.
func portsOf(o object) []destPort {
	switch o.Type {
	case api.KindMeshService, api.KindMeshMultiZoneService:
		var out []destPort
		for _, e := range list(o.Spec["ports"]) {
			m, _ := e.(map[string]any)
			p := destPort{name: str(m["name"]), value: toInt(m["port"]), protocol: str(m["appProtocol"])}
			if p.name == "" {
				p.name = strconv.Itoa(p.value)
			}
			if p.protocol == "" {
				p.protocol = "tcp"
			}
			out = append(out, p)
		}
		return out
	case api.KindMeshExternalService:
		m, _ := o.Spec["match"].(map[string]any)
		v := toInt(m["port"])
		protocol := str(m["protocol"])
		if protocol == "" {
			protocol = "tcp"
		}
		return []destPort{{name: strconv.Itoa(v), value: v, protocol: protocol}}
	}
	return nil
}

// findPort is the destination's port a section names, by name or number.
func findPort(ports []destPort, section string) (destPort, bool) {
	for _, p := range ports {
		if p.name == section || strconv.Itoa(p.value) == section {
			return p, true
		}
	}
	return destPort{}, false
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func stringMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	out := map[string]string{}
	for k, e := range m {
		out[k] = str(e)
	}
	return out
}

func toInt(v any) int {
	switch x := v.(type) {
	case int:
		return x
	case int64:
		return int(x)
	case float64:
		return int(x)
	case string:
		n, _ := strconv.Atoi(strings.TrimSpace(x))
		return n
	}
	return 0
}
