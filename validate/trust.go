package validate

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// storedLabels keeps, on UPDATE by a non-privileged user, the kuma.io/origin and
// kuma.io/zone labels the stored object has: they say which control plane the
// object comes from, and the sync between global and zones keys on them. Kuma
// 2.14.3 checks only the new object, so a zone user could strip
// `kuma.io/origin: global` from a synced policy, have the defaulting webhook label
// it as the zone's own, and take it over; meshguard refuses that on a zone and on
// global (docs/conformance.md). A label the stored object does not have is not protected:
// the mutating webhook adds it, and the mode rules check its value. A standalone
// zone syncs with nobody, so its labels are left to the mode rules, as Kuma does.
func (v *validator) storedLabels() {
	if v.req.Operation != api.OpUpdate || v.req.Old == nil || v.kind.KubernetesOnly() || v.s.Mode == api.ModeStandalone {
		return
	}
	old := v.req.Old.GetLabels()
	for _, c := range []struct{ label, code string }{{api.LabelOrigin, CodeOrigin}, {api.LabelZone, CodeZoneLabel}} {
		was, had := old[c.label]
		if !had {
			continue
		}
		now, has := v.labelMap[c.label]
		if has && now == was {
			continue
		}
		p := labelPath(c.label)
		if v.hasError(p) {
			continue // the mode rules already refused this label's value
		}
		what := fmt.Sprintf("changed to %q", now)
		if !has {
			what = "removed"
		}
		v.err(field.Forbidden(p, fmt.Sprintf(
			"the stored object has %s: %q, which only the mesh's control plane (a privileged user) may change; it was %s. Keep the label, or change the object where it comes from",
			c.label, was, what)), c.code)
	}
}

// hasError reports whether an error was already recorded on path p.
func (v *validator) hasError(p *field.Path) bool {
	s := p.String()
	for _, e := range v.res.Errors {
		if e.Field == s {
			return true
		}
	}
	return false
}

// Delete is the validating webhook's answer to a DELETE of old (the stored
// object) by a non-privileged user: the errors Kuma 2.14.3's resource admission
// gives a delete on a federated zone, where it refuses to let users remove what
// the global control plane provides:
//
//   - a kind only global provides (ReadOnlyOn zone: Mesh, MeshMultiZoneService,
//     MeshGatewayRoute), MG177;
//   - an object of a kind whose origin Kuma checks, in the system namespace, without
//     `kuma.io/origin: zone` (synced from global, or created before the zone was
//     federated), MG013;
//   - a zone-originated object labelled with another zone, MG014.
//
// Unlike Kuma, meshguard does not refuse the delete of an object Kuma would not have
// admitted in the first place (a system-namespace-only kind elsewhere, a policy
// whose role cannot be computed): deleting it is how its owner repairs the mistake.
// Other modes, privileged users and kinds outside Kind.DeleteChecked get no errors.
func Delete(old *unstructured.Unstructured, kind *api.Kind, s api.Settings, req api.Request) field.ErrorList {
	if old == nil || kind == nil || req.Privileged || !kind.DeleteChecked(s.Mode) {
		return nil
	}
	var errs field.ErrorList
	if kind.ReadOnlyOn == s.Mode {
		errs = append(errs, field.Forbidden(field.NewPath("kind"), fmt.Sprintf(
			"%s objects come from the global control plane, which syncs them to this zone; only it may delete them. Delete it on the global control plane",
			kind.Kind)).WithOrigin(CodeResourceAdmission))
		return errs // Kuma stops at the first refusal
	}
	labels := old.GetLabels()
	origin, has := labels[api.LabelOrigin]
	if old.GetNamespace() != "" && old.GetNamespace() == s.SystemNamespace && origin != api.OriginZone {
		why := fmt.Sprintf("it has kuma.io/origin %q: it was synced from the global control plane, which deletes it when it is deleted there", origin)
		if !has {
			why = "it has no kuma.io/origin label: Kuma cannot tell whether the global control plane owns it"
		}
		errs = append(errs, field.Forbidden(labelPath(api.LabelOrigin), fmt.Sprintf(
			"on zone %q users may delete %s objects in the system namespace %q only when they are the zone's own (kuma.io/origin: %s); %s",
			s.Zone, kind.Kind, s.SystemNamespace, api.OriginZone, why)).WithOrigin(CodeOrigin))
		return errs
	}
	if z, ok := labels[api.LabelZone]; ok && has && origin == api.OriginZone && z != s.Zone {
		errs = append(errs, field.Forbidden(labelPath(api.LabelZone), fmt.Sprintf(
			"the object belongs to zone %q, not this zone %q; only the mesh's control plane may delete it here", z, s.Zone)).WithOrigin(CodeZoneLabel))
	}
	return errs
}
