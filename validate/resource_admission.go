package validate

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// resourceAdmission applies what Kuma's admission checks for every resource kind
// before its validator (the ResourceAdmissionChecker): a kind the other control plane
// provides is read-only here, and some kinds live only in the system namespace. Kuma
// skips both for its own service accounts, as the caller does for privileged writers.
func (v *validator) resourceAdmission() {
	k := v.kind
	if k.ReadOnlyOn != "" && k.ReadOnlyOn == v.s.Mode {
		other := api.ModeGlobal
		if k.ReadOnlyOn == api.ModeGlobal {
			other = api.ModeZone
		}
		v.err(field.Forbidden(field.NewPath("kind"), fmt.Sprintf(
			"%s objects are created on the %s control plane and synced to this %s one, which refuses users' writes of them; apply it on the %s control plane",
			k.Kind, other, v.s.Mode, other)), CodeResourceAdmission)
	}
	// On global every namespaced object is held to the system namespace already.
	if k.SystemNamespaceOnly && v.s.Mode != api.ModeGlobal && v.ns != "" && v.ns != v.s.SystemNamespace {
		v.err(field.Forbidden(field.NewPath("metadata", "namespace"), fmt.Sprintf(
			"Kuma accepts %s objects only in the system namespace %q; move it to %q",
			k.Kind, v.s.SystemNamespace, v.s.SystemNamespace)), CodeResourceAdmission)
	}
}
