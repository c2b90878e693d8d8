package lint

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
)

// KumaObject is one Kuma object of a set; Universal marks one read from Kuma's
// Universal format, which Kuma's store names and labels differently.
type KumaObject struct {
	*unstructured.Unstructured
	Universal bool
}

// KumaObjects are the Kuma objects of docs (group kuma.io: policies, Dataplanes,
// Meshes, MeshServices, …) as a cluster would store them: defaulted as the mutating
// webhook would, without those the validating webhook would deny (noted, as
// Preview notes skipped policies) and with only the last copy of an object
// defined twice. It is what `meshguard diff` gives kumainspect to compute what
// every proxy gets. MeshTrafficPermissions are left out: Preview reads them for
// the authorization diff, whose notes already cover them.
func KumaObjects(docs []Document, o Options) ([]KumaObject, []Note) {
	var out []KumaObject
	var notes []Note
	var from []*Document
	var places []placed
	// Judged as they arrive (a Universal document as a Universal control plane
	// judges it), as lint judges them; Prepare is idempotent, so documents
	// Preview prepared already come out the same.
	judged := judgeAll(docs, o, judging{prepare: isKumaObject, check: func(*Document, *api.Kind) bool { return true }, arrived: true})
	for i := range docs {
		d := &docs[i]
		if !judged[i].checked {
			continue
		}
		if res := judged[i].res; len(res.Errors) > 0 {
			e := res.Errors[0]
			note(&notes, d, d.Line, "skipped %s/%s: the webhook would deny it (%s %s: %s)",
				d.Object.GetNamespace(), d.Object.GetName(), e.Origin, e.Field, e.Detail)
			continue
		}
		out = append(out, KumaObject{Unstructured: d.Object, Universal: d.Universal})
		from = append(from, d)
		places = append(places, placeOf(d, o, false))
	}
	return keepLast(out, from, places, &notes), notes
}

// isKumaObject reports whether KumaObjects reads a readable document: group
// kuma.io, MeshTrafficPermissions aside.
func isKumaObject(d *Document) bool {
	return d.Object.GroupVersionKind().Group == api.KumaGroup && d.Object.GetKind() != api.KindMeshTrafficPermission
}
