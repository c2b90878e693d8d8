package api

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// universalMeta are the top-level keys of a Universal-format document that are
// not part of its spec.
func universalMeta(k string) bool {
	switch k {
	case "type", "name", "mesh", "labels", "creationTime", "modificationTime":
		return true
	}
	return false
}

// IsUniversal reports whether a decoded YAML/JSON document is in Kuma's Universal
// format (`type:` and `name:`, no `apiVersion`/`kind`), the format `kumactl apply`
// takes and Kuma's own test data is written in.
func IsUniversal(doc map[string]any) bool {
	_, hasType := doc["type"].(string)
	_, hasAPI := doc["apiVersion"]
	_, hasKind := doc["kind"]
	return hasType && !hasAPI && !hasKind
}

// FromUniversal turns a Universal-format Kuma document into the unstructured object
// the Kubernetes path produces, so the engine sees one form: kind from `type`
// (apiVersion from the registry's storage version, kuma.io/v1alpha1 for kinds it
// does not guard), name from `name`, the mesh as the kuma.io/mesh label (Kuma's
// Universal store keeps it as a field), `labels` as labels, and the namespace from
// the k8s.kuma.io/namespace label of Kubernetes-origin objects. The spec is
// `spec:` for the targetRef-era kinds; for older resources that write their
// fields at the top level (Dataplane, Mesh) it is those fields. Errors name the
// field.
func FromUniversal(doc map[string]any, reg *Registry) (*unstructured.Unstructured, *field.Error) {
	typ, ok := doc["type"].(string)
	if !ok || typ == "" {
		return nil, field.Required(field.NewPath("type"), "a Universal document names its kind in `type`")
	}
	name, ok := doc["name"].(string)
	if !ok || name == "" {
		return nil, field.Required(field.NewPath("name"), "a Universal document needs a `name`")
	}
	version := "v1alpha1"
	if k := reg.Storage(KumaGroup, typ); k != nil {
		version = k.Version
	}
	labels := map[string]any{}
	if l, ok := doc["labels"]; ok && l != nil {
		lm, ok := l.(map[string]any)
		if !ok {
			return nil, field.Invalid(field.NewPath("labels"), l, "must be a map of strings")
		}
		for k, v := range lm {
			s, ok := v.(string)
			if !ok {
				return nil, field.Invalid(field.NewPath("labels").Key(k), v, "must be a string")
			}
			labels[k] = s
		}
	}
	if mesh, ok := doc["mesh"]; ok && mesh != nil {
		s, ok := mesh.(string)
		if !ok {
			return nil, field.Invalid(field.NewPath("mesh"), mesh, "must be a string")
		}
		labels[LabelMesh] = s
	}
	meta := map[string]any{"name": name}
	if len(labels) > 0 {
		meta["labels"] = labels
	}
	if ns, ok := labels[LabelNamespace].(string); ok && ns != "" {
		meta["namespace"] = ns
	}
	obj := map[string]any{"apiVersion": KumaGroup + "/" + version, "kind": typ, "metadata": meta}
	if k := reg.Storage(KumaGroup, typ); k != nil && TopLevelMesh(k) {
		if mesh, ok := labels[LabelMesh]; ok {
			obj["mesh"] = mesh // the field Kuma's Kubernetes form keeps it in
		}
	}
	if spec, ok := doc["spec"]; ok {
		obj["spec"] = spec
	} else {
		spec := map[string]any{}
		for k, v := range doc {
			if !universalMeta(k) {
				spec[k] = v
			}
		}
		if len(spec) > 0 {
			obj["spec"] = spec
		}
	}
	return &unstructured.Unstructured{Object: obj}, nil
}
