package lint

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
)

// KumaObjects are the Kuma objects of docs (group kuma.io: policies, Dataplanes,
// Meshes, MeshServices, …) as a cluster would store them: defaulted as the mutating
// webhook would, without those the validating webhook would deny (noted, as
// Preview notes skipped policies) and with only the last copy of an object
// defined twice. It is what `meshguard diff` gives kumainspect to compute what
// every proxy gets. MeshTrafficPermissions are left out: Preview reads them for
// the authorization diff, whose notes already cover them.
func KumaObjects(docs []Document, o Options) ([]*unstructured.Unstructured, []Note) {
	var out []*unstructured.Unstructured
	var notes []Note
	var from []*Document
	var places []placed
	for i := range docs {
		d := &docs[i]
		if d.Err != nil || d.Object == nil || d.Object.GroupVersionKind().Group != api.KumaGroup ||
			d.Object.GetKind() == api.KindMeshTrafficPermission {
			continue
		}
		kind, _ := Prepare(d, o) // idempotent: Preview may have prepared it already
		if kind == nil {
			continue
		}
		if _, ok := admissible(d, kind, o, &notes); !ok {
			continue
		}
		out = append(out, d.Object)
		from = append(from, d)
		places = append(places, placeOf(d, o, false))
	}
	return keepLast(out, from, places, &notes), notes
}
