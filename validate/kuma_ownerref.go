package validate

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// meshOwnerRef refuses, from Kuma 3.0 (UPGRADE.md: "A resource's Mesh ownerReference
// must match its mesh"), a kuma.io ownerReference of kind Mesh that names a mesh
// other than the object's own: such an object would be owned by one mesh while it
// belongs to another, and Kuma's webhook rejects every write of it until it is
// deleted and applied again in the right mesh. Privileged writers (the control
// plane) are not asked; Kuma also exempts the garbage collector and the storage
// version migrator, which meshguard does not know by name.
func (v *validator) meshOwnerRef(obj *unstructured.Unstructured) {
	if api.KumaBefore(v.s.KumaVersion, api.Kuma30) || (v.kind.Resource && !v.kind.MeshScoped) {
		return
	}
	mesh := api.MeshOf(obj)
	if mesh == "" {
		mesh = v.s.DefaultMesh
	}
	for i, ref := range obj.GetOwnerReferences() {
		if ref.Kind != string(api.RefMesh) || !strings.HasPrefix(ref.APIVersion, api.KumaGroup+"/") || ref.Name == mesh {
			continue
		}
		v.err(field.Invalid(field.NewPath("metadata", "ownerReferences").Index(i).Child("name"), ref.Name, fmt.Sprintf(
			"must be the same as the mesh of the resource %q (Kuma %s): an object cannot move between meshes; delete it and apply it again in mesh %q",
			mesh, v.s.KumaVersion, ref.Name)), CodeMeshChanged)
	}
}
