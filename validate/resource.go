package validate

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// kumaResource validates a Kuma resource that is not a targetRef policy (Mesh,
// MeshService, ...): the labels Kuma keys on, then the kind's own rules on its typed
// spec. The schema layer has already run.
func (v *validator) kumaResource(raw any) {
	p := field.NewPath("spec")
	spec, ok := raw.(map[string]any)
	if !ok {
		if raw != nil && !v.schemaAnswered {
			v.err(field.TypeInvalid(p, api.TypeName(raw), "spec must be an object"), api.CodeWrongType)
		}
		return
	}
	typed := v.kind.NewSpec()
	if api.Decode(spec, typed) != nil {
		return // the schema layer reported the types that do not decode
	}
	v.res.Spec = typed
	v.resourceRules(typed, p)
}

// resourceRules runs the rules of a Kuma resource kind on its typed spec. A kind adds
// one case here and its rules in validate/kuma_<kind>.go.
func (v *validator) resourceRules(spec any, p *field.Path) {
	switch spec.(type) {
	}
}
