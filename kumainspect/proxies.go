package kumainspect

import (
	"sort"

	"github.com/meshguard/meshguard/api"
)

// Proxy names one proxy of the store: its mesh and name as Kuma stores it (View
// takes them), and for a Kubernetes object the namespace and name it was written
// with ("" and the store name for a Universal one), for people.
type Proxy struct {
	Mesh, Name       string
	Namespace, Shown string
}

// Proxies lists the store's proxies (its Dataplanes), mesh by mesh, each mesh's in
// name order. It is the one list that walks over every proxy (`meshguard diff`
// compares each one's View): proxies the store derives from workloads belong in it.
func (s *Store) Proxies() []Proxy {
	var out []Proxy
	for _, o := range s.objects {
		if o.Type != api.KindDataplane {
			continue
		}
		out = append(out, Proxy{Mesh: o.Mesh, Name: o.Name, Namespace: o.Labels[api.LabelNamespace], Shown: o.DisplayName()})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Mesh != out[j].Mesh {
			return out[i].Mesh < out[j].Mesh
		}
		return out[i].Name < out[j].Name
	})
	return out
}
