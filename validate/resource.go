package validate

import (
	"reflect"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// kumaResource validates a Kuma resource that is not a targetRef policy (Mesh,
// MeshService, ...): the labels Kuma keys on, then the kind's own rules on its typed
// spec. The schema layer has already run.
func (v *validator) kumaResource(raw any) {
	p := field.NewPath("spec")
	typed := v.kind.NewSpec()
	if v.specUnchecked() {
		// Kuma decodes such a spec itself: wrong types fail, unknown fields are ignored.
		cr := api.Check(reflect.TypeOf(typed).Elem(), raw, p)
		v.res.Errors = append(v.res.Errors, cr.Errors...)
		v.res.Warnings = append(v.res.Warnings, cr.Warnings...)
		raw = cr.Clean
	}
	spec, ok := raw.(map[string]any)
	if !ok || api.Decode(spec, typed) != nil {
		return // the schema layer or the check above reported why
	}
	v.res.Spec = typed
	v.resourceRules(typed, p)
}

// specUnchecked reports whether no schema checked the spec: there is none loaded, or
// the CRD leaves the spec opaque (Kuma's proto-based resources such as Mesh and
// Dataplane).
func (v *validator) specUnchecked() bool {
	return !v.schemaAnswered || v.s.Schemas.Opaque(v.kind.GVK(), "spec")
}

// resourceRules runs the rules of a Kuma resource kind on its typed spec. A kind adds
// one case here and its rules in validate/kuma_<kind>.go.
func (v *validator) resourceRules(spec any, p *field.Path) {
	switch spec.(type) {
	}
}
