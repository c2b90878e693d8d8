package validate

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// fromDeprecations are Kuma 2.14.3's deprecation warnings for `from`, by kind, in
// Kuma's words (each kind's Deprecations(), returned by its webhook as admission
// warnings). MeshTrafficPermission's has a code of its own (MG190).
var fromDeprecations = map[string]string{
	"MeshAccessLog":      "'from' field is deprecated, use 'rules' instead",
	"MeshCircuitBreaker": "'from' field is deprecated, use 'rules' instead",
	"MeshFaultInjection": "'from' field is deprecated, use 'rules' with SPIFFE-based 'matches' instead",
	"MeshRateLimit":      "'from' field is deprecated, use 'rules' instead",
	"MeshTimeout":        "'from' field is deprecated, use 'rules' instead",
	"MeshTLS":            "'from' field is deprecated, use 'rules' instead",
}

// fromDeprecated warns, as Kuma's webhook does, when a kind that deprecates
// `from` has a non-empty one; like Kuma, only for an object it admits (the
// warning rides on the admission response).
func (v *validator) fromDeprecated(p *field.Path) {
	msg, ok := fromDeprecations[v.kind.Kind]
	if !ok || len(v.res.Errors) > 0 {
		return
	}
	if l, _ := v.spec["from"].([]any); len(l) > 0 {
		v.warn(field.Invalid(p.Child("from"), field.OmitValueType{}, msg+" (Kuma 2.14; 'from' is removed in Kuma 3.0)"), CodeFromDeprecated)
	}
}
