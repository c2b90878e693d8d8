package kumainspect

import (
	"fmt"
	"sort"

	"github.com/meshguard/meshguard/api"
)

// Views is the View of every Dataplane of mesh (of every mesh when mesh is ""),
// meshes and Dataplanes in name order: what `meshguard inspect` shows without
// --dataplane, and what a comparison of two inputs reads proxy by proxy. The error
// names a mesh that is not in the input.
func (s *Store) Views(mesh string) ([]View, error) {
	var out []View
	err := s.EachView(mesh, func(v View) error {
		out = append(out, v)
		return nil
	})
	return out, err
}

// EachView calls fn with the View of every Dataplane of mesh (every mesh when mesh
// is ""), in the order of Views, one at a time, so that a caller writing them out
// holds one proxy's answer, not every proxy's. It stops at the first error, fn's or
// one View gives.
func (s *Store) EachView(mesh string, fn func(View) error) error {
	meshes := []string{mesh}
	if mesh == "" {
		meshes = s.meshNames()
	} else if _, found := s.find(api.KindMesh, "", mesh); !found {
		return fmt.Errorf("mesh %q is not in the input", mesh)
	}
	for _, m := range meshes {
		for _, dp := range s.ofKind(api.KindDataplane, m) {
			v, err := s.View(m, dp.Name)
			if err != nil {
				return err
			}
			if err := fn(v); err != nil {
				return err
			}
		}
	}
	return nil
}

// meshNames are the names of the Meshes of the store, and of any mesh a Dataplane
// names without its Mesh in the input (its View then says the Mesh is missing), in
// name order.
func (s *Store) meshNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, o := range s.objects {
		name := ""
		switch o.Type {
		case api.KindMesh:
			name = o.Name
		case api.KindDataplane:
			name = o.Mesh
		default:
			continue
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// DataplaneJSON is KumaJSON with the proxy it is for: one entry of the list
// `meshguard inspect -o json` writes for every proxy, so that each answer says
// whose it is.
func (v View) DataplaneJSON() any {
	out := v.KumaJSON()
	out["dataplane"] = map[string]string{"mesh": v.Mesh, "name": v.Dataplane, "kri": v.KRI}
	return out
}
