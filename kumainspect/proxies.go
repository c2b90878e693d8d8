package kumainspect

import (
	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumarules"
)

// Dataplanes are the store's Dataplanes in input order, so a door can name the
// proxies there are when one asked for is not.
func (s *Store) Dataplanes() []kumarules.Dataplane {
	var out []kumarules.Dataplane
	for _, o := range s.objects {
		if o.dp != nil {
			out = append(out, *o.dp)
		}
	}
	return out
}

// GatewayProxy is the first builtin gateway Dataplane (in input order) that
// serves the MeshGateway named name: its gateway tags hold every tag of one of
// the MeshGateway's selectors, as Kuma selects the gateway of a proxy.
func (s *Store) GatewayProxy(name string) (kumarules.Dataplane, bool) {
	for _, gw := range s.objects {
		if gw.Type != api.KindMeshGateway || (gw.Name != name && gw.Labels[api.LabelDisplayName] != name) {
			continue
		}
		for _, o := range s.objects {
			if o.dp == nil || o.dp.Gateway != gatewayBuiltin || o.Mesh != gw.Mesh {
				continue
			}
			if selectsGateway(gw.Spec, o.dp.GatewayTags) {
				return *o.dp, true
			}
		}
	}
	return kumarules.Dataplane{}, false
}

// selectsGateway reports whether one of a MeshGateway spec's selectors matches
// tags.
func selectsGateway(spec map[string]any, tags map[string]string) bool {
	for _, e := range list(spec["selectors"]) {
		sel, _ := e.(map[string]any)
		match, _ := sel["match"].(map[string]any)
		ok := len(match) > 0
		for k, v := range match {
			if got, has := tags[k]; !has || (v != "*" && got != v) {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}
