// Package validate decides what the mesh would misread. It returns Kubernetes
// field.ErrorLists (errors deny, warnings are returned as admission warnings) whose
// Origin is the stable rule code, so the webhook, the linter and tests all see the
// same codes and field paths.
package validate

import (
	"fmt"
	"maps"
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// Result holds what validation found. Errors deny the object; Warnings do not.
type Result struct {
	Errors   field.ErrorList
	Warnings field.ErrorList
	// Spec is the typed spec the rules read (for a Kuma kind, e.g.
	// *api.MeshTrafficPermissionSpec), decoded once from the structurally checked
	// spec, so that a caller compiling the object (the webhook's RBAC preview) need
	// not decode it again; nil when the spec did not decode. Callers only read it.
	Spec any
}

// Append adds another result, keeping order.
func (r *Result) Append(o Result) {
	r.Errors = append(r.Errors, o.Errors...)
	r.Warnings = append(r.Warnings, o.Warnings...)
}

// Validate checks one object of a registered kind after defaulting. DELETE is always
// allowed. It never panics, whatever the object holds.
func Validate(obj *unstructured.Unstructured, kind *api.Kind, s api.Settings, req api.Request) Result {
	var res Result
	if kind == nil || req.Operation == api.OpDelete || obj == nil {
		return res
	}
	if !api.GuardedRoute(kind, obj.Object) {
		// A Gateway API route parented only to other gateways is that gateway's
		// controller's business: meshguard says nothing about it.
		return res
	}
	v := &validator{kind: kind, s: s, req: req, res: &res, obj: obj}
	meta, ok := obj.Object["metadata"].(map[string]any)
	if !ok {
		res.Errors = append(res.Errors, field.Required(field.NewPath("metadata"),
			"every object needs metadata with a name").WithOrigin(CodeMetadata))
		return res
	}
	v.ns, _ = meta["namespace"].(string)
	v.name, _ = meta["name"].(string)
	if v.name == "" {
		if g, _ := meta["generateName"].(string); g == "" {
			res.Errors = append(res.Errors, field.Required(field.NewPath("metadata", "name"),
				"set metadata.name").WithOrigin(CodeMetadata))
		}
	}
	labels, ok := v.labels(meta["labels"])
	if !ok {
		return res
	}
	v.labelMap = labels
	switch kind.Family {
	case api.FamilyKuma:
		if v.unservedKuma(obj) {
			return res
		}
		v.schemaAnswered = v.schemaLayer(obj)
		v.kumaLabels(obj)
		if kind.Resource {
			v.kumaResource(obj.Object["spec"])
		} else {
			v.kumaSpec(obj.Object["spec"])
		}
	case api.FamilyLinkerd:
		v.schemaAnswered = v.schemaLayer(obj)
		v.linkerdSpec(obj)
	}
	return res
}

type validator struct {
	kind     *api.Kind
	s        api.Settings
	req      api.Request
	res      *Result
	ns       string
	name     string
	labelMap map[string]string
	// role is the computed policy role; empty when it cannot be computed.
	role api.PolicyRole
	// spec is the raw spec, to tell "absent" from "present but unusable".
	spec map[string]any
	// refusedSections are the sections the shared policy rules refused for the
	// top-level target (MG124): a kind's own rules leave their items alone
	// (sectionOpen), so one mistake is one finding.
	refusedSections map[string]bool
	// obj is the object under validation, for rules that read beyond its spec
	// (a route's own namespace and group).
	obj *unstructured.Unstructured
	// schemaAnswered is set when the kind's CRD checked the object (layer 1), whose
	// findings then replace the hand-written structural check's.
	schemaAnswered bool
}

func (v *validator) err(e *field.Error, code string) {
	v.res.Errors = append(v.res.Errors, e.WithOrigin(code))
}

func (v *validator) warn(e *field.Error, code string) {
	v.res.Warnings = append(v.res.Warnings, e.WithOrigin(code))
}

// sectionOpen reports whether a section of a Kuma policy may be judged item by
// item: the shared rules did not refuse it as a whole.
func (v *validator) sectionOpen(section string) bool { return !v.refusedSections[section] }

// labels checks that metadata.labels is a map of strings and returns it.
func (v *validator) labels(raw any) (map[string]string, bool) {
	out := map[string]string{}
	if raw == nil {
		return out, true
	}
	p := field.NewPath("metadata", "labels")
	m, ok := raw.(map[string]any)
	if !ok {
		v.err(field.TypeInvalid(p, api.TypeName(raw), "labels must be a map of strings"), api.CodeWrongType)
		return nil, false
	}
	good := true
	for k, x := range m {
		s, ok := x.(string)
		if !ok {
			v.err(field.TypeInvalid(p.Key(k), x, fmt.Sprintf("label values must be strings, not %s; quote the value", api.TypeName(x))), api.CodeWrongType)
			good = false
			continue
		}
		out[k] = s
	}
	return out, good
}

// system reports whether the object lives in the mesh's system namespace (or has no
// namespace, which on Kubernetes only cluster-scoped objects have).
func (v *validator) system() bool { return v.ns == "" || v.ns == v.s.SystemNamespace }

// kumaSpec runs the structural check and then the semantic rules on the typed spec.
func (v *validator) kumaSpec(raw any) {
	p := field.NewPath("spec")
	if raw == nil {
		// Kuma reads a policy without spec as one with an empty spec (its
		// generated SetSpec stores an empty message for nil), and its validator
		// judges that: a route without spec is accepted and does nothing (MG126),
		// a MeshTrafficPermission without spec configures nothing (MG020).
		raw = map[string]any{}
	}
	spec, ok := raw.(map[string]any)
	if !ok {
		v.err(field.TypeInvalid(p, api.TypeName(raw), "spec must be an object"), api.CodeWrongType)
		return
	}
	spec = v.removedSections(spec, p)
	v.spec = spec
	typed, decoded := v.structure(spec, p)
	shape := api.ShapeOf(spec)
	rr := api.ComputeRole(shape, v.ns, v.s.SystemNamespace)
	v.role = rr.Role
	if !v.system() {
		v.roleRules(rr, shape, p)
	}
	if !decoded {
		return
	}
	v.res.Spec = typed
	v.runKindRules(typed, p)
	v.fromDeprecated(p)
}

// removedSections returns spec without the sections the kind has in the registry
// but not in the Kuma release of the settings (`from`, removed by Kuma 3.0 from
// seven kinds: Kind.SectionsIn), as the API server prunes them before Kuma sees
// the object: no later rule judges what the release never reads. Where the CRD
// schema answered it has reported the field (MG001, with what to write instead);
// otherwise it is reported here.
func (v *validator) removedSections(spec map[string]any, p *field.Path) map[string]any {
	gone := v.kind.Sections &^ v.kind.SectionsIn(v.s.KumaVersion)
	if gone == 0 {
		return spec
	}
	var out map[string]any
	for k := range spec {
		if sec, known := sectionOf(k); known && gone.Has(sec) {
			if out == nil {
				out = maps.Clone(spec)
			}
			delete(out, k)
			if !v.schemaAnswered {
				v.unknown(p.Child(k), api.KumaFieldAdvice(v.s.KumaVersion, v.kind.Kind, p.Child(k).String()))
			}
		}
	}
	if out == nil {
		return spec
	}
	return out
}

// structure reports sections the kind lacks (unless the CRD schema answered, which
// prunes them) and returns the spec without them, decoded into the kind's typed
// spec (see decodeSpec); ok is false when it does not decode.
func (v *validator) structure(spec map[string]any, p *field.Path) (typed any, ok bool) {
	filtered := make(map[string]any, len(spec))
	for k, val := range spec {
		if sec, known := sectionOf(k); known && !v.kind.Sections.Has(sec) {
			if v.schemaAnswered {
				continue
			}
			v.unknown(p.Child(k), fmt.Sprintf("%s has no %q section; %s", v.kind.Kind, k, sectionHint(v.kind)))
			continue
		}
		filtered[k] = val
	}
	return v.decodeSpec(filtered, p)
}

// decodeSpec decodes spec into the kind's typed spec for the kind's rules. Where
// the CRD schema answered (every registered kind in every door: the embedded
// releases serve them all), the schema has reported every wrong type and unknown
// field, so a spec that decodes is used as it is and api.Check does not run.
// api.Check runs only where it still has work: where no schema answered (engine
// tests without CRDs), its findings are the structural check; and where the spec
// does not decode (a wrong type the schema reported), its cleaned copy without the
// wrongly typed parts lets the kind's rules still judge the rest.
func (v *validator) decodeSpec(spec map[string]any, p *field.Path) (typed any, ok bool) {
	typed = v.kind.NewSpec()
	if v.schemaAnswered && api.Decode(spec, typed) == nil {
		return typed, true
	}
	cr := api.Check(reflect.TypeOf(typed).Elem(), spec, p)
	v.structural(cr)
	clean, _ := cr.Clean.(map[string]any)
	typed = v.kind.NewSpec()
	if api.Decode(clean, typed) != nil {
		return nil, false
	}
	return typed, true
}

// structural reports the hand-written check's findings unless the CRD schema already
// answered for the object.
func (v *validator) structural(cr api.CheckResult) {
	if v.schemaAnswered {
		return
	}
	v.structuralFindings(cr)
}

func sectionOf(k string) (api.Section, bool) {
	switch k {
	case "targetRef":
		return api.SecTargetRef, true
	case "to":
		return api.SecTo, true
	case "from":
		return api.SecFrom, true
	case "rules":
		return api.SecRules, true
	case "default":
		return api.SecDefault, true
	}
	return 0, false
}

func sectionHint(k *api.Kind) string {
	names := k.Sections.Names()
	out := k.Kind + " has "
	for i, n := range names {
		if i > 0 {
			if i == len(names)-1 {
				out += " and "
			} else {
				out += ", "
			}
		}
		out += "'" + n + "'"
	}
	return out
}
