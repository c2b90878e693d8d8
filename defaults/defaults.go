// Package defaults computes what the mutating webhook adds to a Kuma policy: the
// labels Kuma keys its behaviour on and the syntactic-sugar defaults of the policy-on-namespace MADR.
// It is pure: it takes an object and the deployment settings and changes the object.
package defaults

import (
	"maps"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// IsOtherSide reports whether an object carries the origin of the other control plane
// (a global object on a zone, a zone object on global): such objects are synced by the
// mesh itself and must be stored exactly as sent.
func IsOtherSide(labels map[string]string, s api.Settings) bool {
	origin, ok := labels[api.LabelOrigin]
	if !ok {
		return false
	}
	switch s.Mode {
	case api.ModeZone:
		return origin == api.OriginGlobal
	case api.ModeGlobal:
		return origin == api.OriginZone
	}
	return false
}

// Apply mutates obj in place the way the mutating webhook stores it: owned labels
// first, then (with --sugar=expand) the implied spec values of the policy-on-namespace MADR. It is
// idempotent, never fails and leaves fields it does not own untouched, unknown ones
// included. Privileged writers and objects from the other side are not touched.
// It returns a CodeLabelReplaced warning for each label the user set that it
// replaced (see replaced), so no door reverts a user's value silently.
func Apply(obj *unstructured.Unstructured, kind *api.Kind, s api.Settings, req api.Request) field.ErrorList {
	replaced, _ := ApplyChanges(obj, kind, s, req)
	return replaced
}

// ApplyChanges is Apply that also returns what it wrote, in a fixed order: each
// label it set or changed, and each sugar value. The mutating webhook turns these
// into JSON-patch operations, so that a patch costs what was written, not a diff of
// the whole object.
func ApplyChanges(obj *unstructured.Unstructured, kind *api.Kind, s api.Settings, req api.Request) (field.ErrorList, []Change) {
	if kind == nil || kind.Family != api.FamilyKuma || req.Privileged || req.Operation == api.OpDelete {
		return nil, nil
	}
	meta, ok := obj.Object["metadata"].(map[string]any)
	if !ok {
		return nil, nil // validate reports a missing or malformed metadata
	}
	labels, ok := stringMap(meta["labels"])
	if !ok {
		return nil, nil // labels of the wrong type: validate reports them, we do not guess
	}
	if IsOtherSide(labels, s) {
		return nil, nil
	}
	set := maps.Clone(labels)
	ns, _ := meta["namespace"].(string)
	spec, _ := obj.Object["spec"].(map[string]any)

	if kind.Resource {
		if api.TopLevelMesh(kind) {
			// Kuma labels these kinds with their top-level mesh (default if none).
			labels[api.LabelMesh], _ = obj.Object["mesh"].(string)
		}
		resourceLabels(labels, kind, ns, s)
	} else {
		policyLabels(labels, spec, ns, s)
	}
	out := make(map[string]any, len(labels))
	for k, v := range labels {
		out[k] = v
	}
	rec := &recorder{}
	rec.labels(meta["labels"] == nil, set, labels, out)
	meta["labels"] = out

	if s.Sugar == api.SugarExpand && spec != nil && !kind.Resource {
		expandSugar(spec, kind, s.KumaVersion, ns, ns == "" || ns == s.SystemNamespace, rec)
	}
	if s.Sugar == api.SugarExpand && spec != nil && kind.Kind == string(api.RefMesh) && kind.Group == api.KumaGroup {
		meshDefaults(spec, rec)
	}
	return replaced(set, labels, req), rec.changes
}

// policyLabels computes the labels of a targetRef policy: mesh, namespace, role and
// the origin of the mode.
func policyLabels(labels map[string]string, spec map[string]any, ns string, s api.Settings) {
	if labels[api.LabelMesh] == "" {
		labels[api.LabelMesh] = s.DefaultMesh
	}
	if ns != "" {
		labels[api.LabelNamespace] = ns
	}
	if r := api.ComputeRole(api.ShapeOf(spec), ns, s.SystemNamespace); r.OK() {
		labels[api.LabelPolicyRole] = string(r.Role)
	}
	switch s.Mode {
	case api.ModeZone:
		zoneOrigin(labels, s)
	case api.ModeGlobal:
		setIfAbsent(labels, api.LabelOrigin, api.OriginGlobal)
	}
}

// resourceLabels computes the labels Kuma's defaulting webhook gives a resource: the
// mesh of a mesh-scoped kind, the namespace, and on a zone the zone origin of a kind
// the zone provides.
func resourceLabels(labels map[string]string, kind *api.Kind, ns string, s api.Settings) {
	if kind.MeshScoped && labels[api.LabelMesh] == "" {
		labels[api.LabelMesh] = s.DefaultMesh
	}
	if s.Mode == api.ModeZone && kind.ZoneProvided {
		zoneOrigin(labels, s)
	}
	// Kuma labels the namespace of locally originated objects: on global every object
	// that reaches here (zone-originated ones were left alone), on a zone those not
	// synced from global.
	if ns != "" && (s.Mode == api.ModeGlobal || labels[api.LabelOrigin] != api.OriginGlobal) {
		setIfAbsent(labels, api.LabelNamespace, ns)
	}
}

// zoneOrigin marks an object created on a zone: origin zone, and unless it came from
// the global control plane, the zone and its environment.
func zoneOrigin(labels map[string]string, s api.Settings) {
	setIfAbsent(labels, api.LabelOrigin, api.OriginZone)
	if labels[api.LabelOrigin] != api.OriginGlobal {
		setIfAbsent(labels, api.LabelZone, s.Zone)
		setIfAbsent(labels, api.LabelEnv, api.EnvKubernetes)
	}
}

func setIfAbsent(m map[string]string, k, v string) {
	if _, ok := m[k]; !ok {
		m[k] = v
	}
}

// stringMap reads a labels map; absent is an empty map, any non-string value fails.
func stringMap(v any) (map[string]string, bool) {
	out := map[string]string{}
	if v == nil {
		return out, true
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	for k, x := range m {
		s, ok := x.(string)
		if !ok {
			return nil, false
		}
		out[k] = s
	}
	return out, true
}

// expandSugar writes the policy-on-namespace MADR's implied values: top-level targetRef Mesh, from[]
// targetRef Mesh, and the policy's namespace on name references that Kuma resolves
// in that namespace. The namespace is only filled outside the system namespace,
// where a missing namespace means "the policy's namespace"; in the system
// namespace it keeps its legacy kuma.io/service meaning. A Kuma release that
// removed `from` (Kind.SectionsIn) or selects by labels only (api.KumaLabelsOnly:
// no name, no namespace) gets neither: the sugar never writes a field the release's
// CRD lacks.
func expandSugar(spec map[string]any, kind *api.Kind, version, ns string, system bool, rec *recorder) {
	if kind.Sections.Has(api.SecTargetRef) && isAbsentRef(spec["targetRef"]) {
		spec["targetRef"] = map[string]any{"kind": string(api.RefMesh)}
		rec.add(spec["targetRef"], "spec", "targetRef")
	}
	if kind.SectionsIn(version).Has(api.SecFrom) {
		eachMap(spec["from"], func(i string, it map[string]any) {
			if isAbsentRef(it["targetRef"]) {
				it["targetRef"] = map[string]any{"kind": string(api.RefMesh)}
				rec.add(it["targetRef"], "spec", "from", i, "targetRef")
			}
		})
	}
	if system || !kind.Sections.Has(api.SecTo) || api.KumaLabelsOnly(version) {
		return
	}
	eachMap(spec["to"], func(i string, it map[string]any) {
		if tr, ok := it["targetRef"].(map[string]any); ok {
			fillNamespace(tr, ns, rec, "spec", "to", i, "targetRef")
		}
		if !kind.Route {
			return
		}
		eachMap(it["rules"], func(j string, rule map[string]any) {
			def, ok := rule["default"].(map[string]any)
			if !ok {
				return
			}
			eachMap(def["backendRefs"], func(k string, br map[string]any) {
				fillNamespace(br, ns, rec, "spec", "to", i, "rules", j, "default", "backendRefs", k)
			})
			eachMap(def["filters"], func(k string, f map[string]any) {
				if rm, ok := f["requestMirror"].(map[string]any); ok {
					if br, ok := rm["backendRef"].(map[string]any); ok {
						fillNamespace(br, ns, rec, "spec", "to", i, "rules", j, "default", "filters", k, "requestMirror", "backendRef")
					}
				}
			})
		})
	})
}

// isAbsentRef is true for a missing targetRef, null, or `{}` (Kuma's SPIFFE-matches MADR writes
// `targetRef: {}` for "the whole mesh").
func isAbsentRef(v any) bool {
	if v == nil {
		return true
	}
	m, ok := v.(map[string]any)
	return ok && len(m) == 0
}

// fillNamespace sets the namespace of a name reference to a namespaced MeshService
// or MeshHTTPRoute, the kinds Kuma resolves in the policy's namespace.
func fillNamespace(ref map[string]any, ns string, rec *recorder, path ...string) {
	kind, _ := ref["kind"].(string)
	name, _ := ref["name"].(string)
	if name == "" {
		return
	}
	switch api.RefKind(kind) {
	case api.RefMeshService, api.RefMeshHTTPRoute:
	default:
		return
	}
	if cur, present := ref["namespace"]; present && cur != "" && cur != nil {
		return
	}
	ref["namespace"] = ns
	rec.add(ns, append(path, "namespace")...)
}

// eachMap calls fn with the index (as a path element) of each object in the list v.
func eachMap(v any, fn func(i string, m map[string]any)) {
	l, _ := v.([]any)
	for i, e := range l {
		if m, ok := e.(map[string]any); ok {
			fn(strconv.Itoa(i), m)
		}
	}
}
