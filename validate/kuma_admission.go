package validate

import (
	"fmt"
	"regexp"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// resourceOrigin applies Kuma's origin rules to a resource kind (the
// ResourceAdmissionChecker's label checks and the validating webhook's origin check),
// which are narrower than those of policies: Kuma checks kuma.io/origin's value on
// every kind in its resource store, but the mode rules only on the kinds of its
// plugin API (MeshService, MeshIdentity, ...), not on Mesh, MeshGateway,
// MeshGatewayRoute and Dataplane; and its Kubernetes-only kinds (MeshGatewayInstance,
// MeshGatewayConfig) pass no resource admission at all.
func (v *validator) resourceOrigin(l map[string]string) {
	if kubernetesOnly(v.kind) {
		return
	}
	origin, has := l[api.LabelOrigin]
	p := labelPath(api.LabelOrigin)
	if has && origin != api.OriginZone && origin != api.OriginGlobal {
		v.err(field.NotSupported(p, origin, []string{api.OriginZone, api.OriginGlobal}), CodeOrigin)
		return
	}
	switch v.kind.Kind {
	case string(api.RefMesh), string(api.RefMeshGateway), string(api.RefMeshGatewayRoute), string(api.RefDataplane):
		return
	}
	if v.admissionRefused() {
		return // Kuma stops at the first refusal; the label rules come last
	}
	switch v.s.Mode {
	case api.ModeGlobal:
		if origin == api.OriginZone {
			v.err(field.Invalid(p, origin, fmt.Sprintf(
				"a global control plane only takes %s objects of origin %q from users; remove the label (the webhook sets it)", v.kind.Kind, api.OriginGlobal)), CodeOrigin)
		}
	case api.ModeZone:
		if v.ns != "" && v.ns == v.s.SystemNamespace && origin != api.OriginZone {
			v.err(field.Invalid(p, origin, fmt.Sprintf(
				"a federated zone takes %s objects in the system namespace only with kuma.io/origin %q; remove the label (the webhook sets it)", v.kind.Kind, api.OriginZone)), CodeOrigin)
		}
		if z, ok := l[api.LabelZone]; ok && origin == api.OriginZone && z != v.s.Zone {
			v.err(field.Invalid(labelPath(api.LabelZone), z, fmt.Sprintf(
				"must be this zone's name %q; remove the label and let the webhook set it", v.s.Zone)), CodeZoneLabel)
		}
	}
}

// admissionRefused reports whether Kuma's admission refuses the object before it
// looks at labels: outside the system namespace on global (or, for system-namespace
// kinds, on a zone), or a kind the other control plane provides.
func (v *validator) admissionRefused() bool {
	outside := v.ns != "" && v.ns != v.s.SystemNamespace
	return v.kind.ReadOnlyOn != "" && v.kind.ReadOnlyOn == v.s.Mode ||
		outside && (v.s.Mode == api.ModeGlobal || v.kind.SystemNamespaceOnly)
}

// kubernetesOnly reports the kinds that exist only as Kubernetes objects, outside
// Kuma's resource store (MeshGatewayInstance, MeshGatewayConfig): Kuma's resource
// admission (namespace, read-only and origin rules) never sees them.
func kubernetesOnly(k *api.Kind) bool {
	return k.KubernetesOnly()
}

// legacyMeshNameRE is the mesh name rule Kuma keeps for old objects' mesh fields.
var legacyMeshNameRE = regexp.MustCompile(`^[0-9a-z-_.]*$`)

// topLevelMesh checks the top-level mesh field of the kinds Kuma reads it from
// (MeshGateway, MeshGatewayRoute, Dataplane): Kuma's webhook refuses the object
// without it, whatever its labels say.
func (v *validator) topLevelMesh(obj *unstructured.Unstructured) {
	if !api.TopLevelMesh(v.kind) {
		return
	}
	p := field.NewPath("mesh")
	mesh, _ := obj.Object["mesh"].(string)
	switch {
	case mesh == "":
		v.err(field.Required(p, fmt.Sprintf("Kuma reads a %s's mesh from the top-level mesh field (not the kuma.io/mesh label); add mesh: %s", v.kind.Kind, v.s.DefaultMesh)), CodeMeshName)
	case len(mesh) > 253:
		v.err(field.TooLong(p, "", 253), CodeMeshName)
	case !legacyMeshNameRE.MatchString(mesh):
		v.err(field.Invalid(p, mesh, "a mesh name may only contain lower-case letters, digits, '-', '_' and '.'"), CodeMeshName)
	}
}
