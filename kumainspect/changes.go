package kumainspect

import (
	"reflect"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumarules"
)

// Affected says which proxies a change from old to now can alter, where that can
// be told without computing them: when only targetRef policies changed (not
// routes, Dataplanes, Meshes, destinations or any other resource), a proxy's
// merged conf can change only where a changed policy selects it, before or
// after. ok is false when something else changed (a Dataplane, a MeshService, a
// route, whose effects reach proxies no changed policy selects): then every proxy
// must be compared. The answer is keyed by mesh and Dataplane name.
func Affected(old, now *Store) (proxies map[[2]string]bool, ok bool) {
	proxies, _, ok = AffectedKinds(old, now)
	return proxies, ok
}

// AffectedKinds is Affected, and, when ok, the kinds of the policies that
// changed: each kind's policies are matched and merged apart from every other
// kind's, so a proxy's conf of any other kind is the same in both stores
// (ViewKinds computes only some kinds).
func AffectedKinds(old, now *Store) (proxies map[[2]string]bool, kinds map[string]bool, ok bool) {
	changed := map[string]bool{} // store keys of the policies that differ
	kinds = map[string]bool{}
	seen := map[string]bool{}
	for _, o := range old.objects {
		key := storeKey(o.Type, o.Mesh, o.Name)
		seen[key] = true
		n, found := now.findKey(key)
		if found && reflect.DeepEqual(o.Spec, n.Spec) && reflect.DeepEqual(o.Labels, n.Labels) {
			continue
		}
		if !old.changeable(o) {
			return nil, nil, false
		}
		changed[key] = true
		kinds[o.Type] = true
	}
	for _, n := range now.objects {
		key := storeKey(n.Type, n.Mesh, n.Name)
		if seen[key] {
			continue
		}
		if !now.changeable(n) {
			return nil, nil, false
		}
		changed[key] = true
		kinds[n.Type] = true
	}
	proxies = map[[2]string]bool{}
	for _, s := range []*Store{old, now} {
		if err := s.selectedBy(changed, proxies); err != nil {
			return nil, nil, false
		}
	}
	return proxies, kinds, true
}

// changeable is a kind whose change reaches only the proxies it selects: a
// targetRef policy other than a route (MeshHTTPRoute and MeshTCPRoute change
// what other policies' route items apply to).
func (s *Store) changeable(o object) bool {
	if o.dp != nil {
		return false
	}
	k := s.reg.Storage(api.KumaGroup, o.Type)
	return k != nil && !k.Resource && o.Type != api.KindMeshHTTPRoute && o.Type != api.KindMeshTCPRoute
}

// selectedBy adds to out the Dataplanes the policies of keys (those s holds)
// select, as Kuma's _resources/dataplanes decides it.
func (s *Store) selectedBy(keys map[string]bool, out map[[2]string]bool) error {
	byMesh := map[string][]kumarules.Policy{}
	for key := range keys {
		if o, found := s.findKey(key); found {
			byMesh[o.Mesh] = append(byMesh[o.Mesh], o.Policy)
		}
	}
	for mesh, ps := range byMesh {
		dps, err := s.focusedPolicies(mesh, s.ofKind(api.KindDataplane, mesh), ps)
		if err != nil {
			return err
		}
		for _, dp := range dps {
			out[[2]string{mesh, dp.Name}] = true
		}
	}
	return nil
}
