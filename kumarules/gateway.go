package kumarules

import (
	"strconv"

	"github.com/meshguard/meshguard/api"
)

// gateway is the MeshGateway a builtin gateway Dataplane serves: its tags and its
// listeners' ports and tags. Policies select a builtin gateway by its listeners.
type gateway struct {
	meta      Meta
	tags      map[string]string
	listeners []gatewayListener
}

type gatewayListener struct {
	port     int
	hostname string
	tags     map[string]string
}

// selectGateway is the MeshGateway of objects that serves a builtin gateway
// Dataplane, as Kuma's SelectGateway picks it: among the MeshGateways of the
// Dataplane's mesh (and, for a zone Dataplane, those of its zone or without an
// origin), the one with a selector its gateway tags match, the most specific
// selector winning, then the smaller name. Nil for other Dataplanes or when none
// matches.
func selectGateway(dp Dataplane, objects []Policy) *gateway {
	if dp.Gateway != gatewayBuiltin {
		return nil
	}
	var best *Policy
	bestScore := -1
	for i := range objects {
		o := &objects[i]
		if o.Type != refMeshGateway || o.Mesh != dp.Mesh || !gatewayInZone(o.Meta, dp) {
			continue
		}
		sels, _ := o.Spec["selectors"].([]any)
		for _, s := range sels {
			m, _ := s.(map[string]any)
			match := strMap(m["match"])
			if !tagsMatch(match, dp.GatewayTags) {
				continue
			}
			if len(match) > bestScore || (len(match) == bestScore && o.Name < best.Name) {
				best, bestScore = o, len(match)
			}
		}
	}
	if best == nil {
		return nil
	}
	gw := &gateway{meta: best.Meta, tags: strMap(best.Spec["tags"])}
	conf, _ := best.Spec["conf"].(map[string]any)
	ls, _ := conf["listeners"].([]any)
	for _, l := range ls {
		m, _ := l.(map[string]any)
		host := str(m["hostname"])
		if host == "" {
			host = wildcardHostname
		}
		gw.listeners = append(gw.listeners, gatewayListener{port: toInt(m["port"]), hostname: host, tags: strMap(m["tags"])})
	}
	return gw
}

// wildcardHostname is the hostname of a MeshGateway listener that names none.
const wildcardHostname = "*"

// gatewayInZone: a zone Dataplane is served only by MeshGateways without an origin,
// of global origin, or local to its zone (Kuma's filterGatewaysByZone).
func gatewayInZone(gw Meta, dp Dataplane) bool {
	origin, ok := gw.Labels[api.LabelOrigin]
	if !ok || origin == api.OriginGlobal {
		return true
	}
	zone, dpZoned := dp.Labels[labelZone]
	return !dpZoned || localToZone(gw.Labels, zone)
}

// localToZone is Kuma's IsLocalZoneResource: a zone-origin resource of zone, or
// one of zone origin without a zone label (written by Kuma 2.7, which set none).
func localToZone(labels map[string]string, zone string) bool {
	if labels[api.LabelOrigin] != "zone" {
		return false
	}
	z, ok := labels[labelZone]
	return !ok || z == zone
}

// gatewayListeners are the listeners (address:port) of gw whose tags (the
// Dataplane's gateway tags, the gateway's and the listener's, later ones winning)
// the selector matches, and those listeners with their hostnames
// (address:port:hostname), one per MeshGateway listener, as Kuma lists them.
func gatewayListeners(sel map[string]string, dp Dataplane, gw *gateway) ([]Listener, []ListenerHostname) {
	if gw == nil {
		return nil, nil
	}
	var out []Listener
	var hosts []ListenerHostname
	seen := map[Listener]bool{}
	for _, l := range gw.listeners {
		tags := map[string]string{}
		for _, m := range []map[string]string{dp.GatewayTags, gw.tags, l.tags} {
			for k, v := range m {
				tags[k] = v
			}
		}
		if !tagsMatch(sel, tags) {
			continue
		}
		li := Listener(dp.Address + ":" + strconv.Itoa(l.port))
		hosts = append(hosts, ListenerHostname(string(li)+":"+l.hostname))
		if !seen[li] {
			seen[li] = true
			out = append(out, li)
		}
	}
	return out, hosts
}

// gatewayReferenced: a MeshGateway targetRef names gw by its name or display name.
func gatewayReferenced(ref TargetRef, gw *gateway) bool {
	return gw != nil && (ref.Name == gw.meta.Name || ref.Name == gw.meta.DisplayName())
}
