package validate

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// fromDeprecatedSince is the Kuma release that deprecates `from` (MG190, MG192):
// Kuma 2.13 gives no such warning, nor does --kuma-version 2.13.
const fromDeprecatedSince = "2.14"

// fromDeprecated warns, as Kuma's webhook does, when a kind that deprecates
// `from` has a non-empty one; like Kuma, only for an object it admits (the
// warning rides on the admission response).
func (v *validator) fromDeprecated(p *field.Path) {
	msg := api.FromDeprecation(v.kind.Kind)
	if msg == "" || len(v.res.Errors) > 0 || api.KumaBefore(v.s.KumaVersion, fromDeprecatedSince) {
		return
	}
	if l, _ := v.spec["from"].([]any); len(l) > 0 {
		v.warn(field.Invalid(p.Child("from"), field.OmitValueType{}, msg+" (Kuma 2.14; 'from' is removed in Kuma 3.0)"), CodeFromDeprecated)
	}
}
