package kumarules

import (
	"strconv"
)

// gateway is the MeshGateway a builtin gateway Dataplane serves: its tags and its
// listeners' ports and tags. Policies select a builtin gateway by its listeners.
type gateway struct {
	meta      Meta
	tags      map[string]string
	listeners []gatewayListener
}

type gatewayListener struct {
	port int
	tags map[string]string
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
		gw.listeners = append(gw.listeners, gatewayListener{port: toInt(m["port"]), tags: strMap(m["tags"])})
	}
	return gw
}

// gatewayInZone: a zone Dataplane is served only by MeshGateways without an origin
// or of its own zone.
func gatewayInZone(gw Meta, dp Dataplane) bool {
	origin, ok := gw.Labels["kuma.io/origin"]
	if !ok {
		return true
	}
	zone, dpZoned := dp.Labels[labelZone]
	return !dpZoned || origin != "zone" || gw.Labels[labelZone] == zone
}

// gatewayListeners are the listeners (address:port) of gw whose tags (the
// Dataplane's gateway tags, the gateway's and the listener's, later ones winning)
// the selector matches.
func gatewayListeners(sel map[string]string, dp Dataplane, gw *gateway) []Listener {
	if gw == nil {
		return nil
	}
	var out []Listener
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
		if !seen[li] {
			seen[li] = true
			out = append(out, li)
		}
	}
	return out
}

// gatewayReferenced: a MeshGateway targetRef names gw by its name or display name.
func gatewayReferenced(ref TargetRef, gw *gateway) bool {
	return gw != nil && (ref.Name == gw.meta.Name || ref.Name == gw.meta.DisplayName())
}
