package validate

import (
	"fmt"
	"regexp"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// meshNameRE is Kuma's mesh name rule; compiled once, never changed.
var meshNameRE = regexp.MustCompile(`^[0-9a-z-_.]*$`)

func labelPath(k string) *field.Path { return field.NewPath("metadata", "labels").Key(k) }

// kumaLabels checks the labels Kuma keys its behaviour on. Privileged writers (the
// mesh's own sync) are trusted with the owned labels; everyone else must agree with
// what the mutating webhook computes, which catches a skipped or bypassed mutation.
func (v *validator) kumaLabels(obj *unstructured.Unstructured) {
	l := v.labelMap
	// Kuma checks the mesh of mesh-scoped kinds only (not of a Mesh or a HostnameGenerator);
	// a label the mutating stage copied from a top-level mesh field is that field's to
	// report (topLevelMesh), once.
	if mesh, ok := l[api.LabelMesh]; ok && (!v.kind.Resource || v.kind.MeshScoped) && !v.copiedMesh(obj, mesh) {
		v.meshName(mesh)
	}
	if v.req.Operation == api.OpUpdate && v.req.Old != nil {
		oldMesh := v.s.DefaultMesh
		if m := v.req.Old.GetLabels()[api.LabelMesh]; m != "" {
			oldMesh = m
		}
		newMesh := l[api.LabelMesh]
		if newMesh == "" {
			newMesh = v.s.DefaultMesh
		}
		if oldMesh != newMesh {
			v.err(field.Forbidden(labelPath(api.LabelMesh), fmt.Sprintf(
				"a policy cannot move from mesh %q to mesh %q; delete it and create it again in the new mesh", oldMesh, newMesh)), CodeMeshChanged)
		}
	}
	if v.req.Privileged {
		return
	}
	v.meshOwnerRef(obj)
	defer v.storedLabels() // after the mode rules, which it leaves a refused label to
	if v.s.Mode == api.ModeGlobal && v.ns != "" && v.ns != v.s.SystemNamespace && !kubernetesOnly(v.kind) {
		v.err(field.Forbidden(field.NewPath("metadata", "namespace"), fmt.Sprintf(
			"on a global control plane %s objects can only be created in the system namespace %q; move the object to %q or apply it on a zone",
			v.kind.Kind, v.s.SystemNamespace, v.s.SystemNamespace)), CodeGlobalNamespace)
	}
	if v.kind.Resource {
		v.resourceAdmission()
		v.resourceOrigin(l)
		v.topLevelMesh(obj)
	} else {
		v.origin(l)
	}
	// Kuma's defaulter sets k8s.kuma.io/namespace only when absent, on every kind.
	// meshguard owns it on policies and the resources users write (a spoofed one
	// would move a consumer policy, or a MeshExternalService, to another namespace
	// for everything that reads it), and keeps a Dataplane's as Kuma does: the
	// control plane writes Dataplanes itself, and published Dataplane manifests set it.
	if nsLabel, ok := l[api.LabelNamespace]; ok && v.kind.Kind != api.KindDataplane && v.ns != "" && nsLabel != v.ns {
		v.err(field.Invalid(labelPath(api.LabelNamespace), nsLabel, fmt.Sprintf(
			"must be the policy's namespace %q; remove the label and let the webhook set it", v.ns)), CodeOwnedLabel)
	}
	if role, ok := l[api.LabelPolicyRole]; ok && !v.kind.Resource {
		spec, _ := obj.Object["spec"].(map[string]any)
		rr := api.ComputeRole(api.ShapeOf(spec), v.ns, v.s.SystemNamespace)
		if rr.OK() && role != string(rr.Role) {
			v.err(field.Invalid(labelPath(api.LabelPolicyRole), role, fmt.Sprintf(
				"the policy's role is %q (computed from its namespace and 'to' items); remove the label and let the webhook set it", rr.Role)), CodeOwnedLabel)
		}
	}
}

// copiedMesh reports whether mesh, the kuma.io/mesh label, is the top-level mesh field
// of a kind Kuma reads its mesh from (MeshGateway, MeshGatewayRoute, Dataplane).
func (v *validator) copiedMesh(obj *unstructured.Unstructured, mesh string) bool {
	top, _ := obj.Object["mesh"].(string)
	return api.TopLevelMesh(v.kind) && top == mesh
}

func (v *validator) meshName(mesh string) {
	p := labelPath(api.LabelMesh)
	switch {
	case mesh == "":
		v.err(field.Invalid(p, mesh, fmt.Sprintf("must not be empty; remove the label to use mesh %q or name a mesh", v.s.DefaultMesh)), CodeMeshName)
	case len(mesh) > api.MaxMeshNameLength:
		v.err(field.TooLong(p, "", api.MaxMeshNameLength), CodeMeshName)
	case !meshNameRE.MatchString(mesh):
		v.err(field.Invalid(p, mesh, "a mesh name may only contain lower-case letters, digits, '-', '_' and '.'"), CodeMeshName)
	}
}

// origin enforces kuma.io/origin and the zone labels per mode, as Kuma's own webhook
// does: a zone accepts only zone-originated writes from users, a global only global
// ones; a standalone zone accepts either but not an unknown value.
func (v *validator) origin(l map[string]string) {
	origin, has := l[api.LabelOrigin]
	p := labelPath(api.LabelOrigin)
	if has && origin != api.OriginZone && origin != api.OriginGlobal {
		v.err(field.NotSupported(p, origin, []string{api.OriginZone, api.OriginGlobal}), CodeOrigin)
		return
	}
	switch v.s.Mode {
	case api.ModeZone:
		if has && origin != api.OriginZone {
			v.err(field.Invalid(p, origin, fmt.Sprintf(
				"on zone %q users may only create zone-originated policies; only the mesh's sync writes %q objects. Remove the label (the webhook sets %q)",
				v.s.Zone, origin, api.OriginZone)), CodeOrigin)
			return
		}
		if z, ok := l[api.LabelZone]; ok && z != v.s.Zone {
			v.err(field.Invalid(labelPath(api.LabelZone), z, fmt.Sprintf(
				"must be this zone's name %q; remove the label and let the webhook set it", v.s.Zone)), CodeZoneLabel)
		}
		// kuma.io/env is not checked: Kuma sets it only when absent and keeps the
		// value a user wrote (labels.Compute's setIfNotExist), "universal" included.
	case api.ModeGlobal:
		if has && origin != api.OriginGlobal {
			v.err(field.Invalid(p, origin, fmt.Sprintf(
				"on a global control plane users may only create global-originated policies; only the mesh's sync writes %q objects. Remove the label (the webhook sets %q)",
				origin, api.OriginGlobal)), CodeOrigin)
		}
	}
}
