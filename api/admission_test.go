package api

import (
	"slices"
	"testing"
)

// TestDeleteChecked pins which kinds' DELETE the validating webhook must see: on a
// federated zone, the Kuma kinds whose deletes Kuma refuses to users (read-only on
// zones, or origin-checked); on every other mode none.
func TestDeleteChecked(t *testing.T) {
	reg := DefaultRegistry()
	var zone []string
	for _, k := range reg.Kinds() {
		for _, m := range []Mode{ModeStandalone, ModeGlobal} {
			if k.DeleteChecked(m) {
				t.Errorf("%s: DELETE checked in mode %s; Kuma refuses deletes only on a federated zone", k.Kind, m)
			}
		}
		if k.DeleteChecked(ModeZone) {
			zone = append(zone, k.Kind)
			if !slices.Equal(k.DeleteCheckedModes(), []Mode{ModeZone}) {
				t.Errorf("%s: DeleteCheckedModes = %v", k.Kind, k.DeleteCheckedModes())
			}
		} else if len(k.DeleteCheckedModes()) != 0 {
			t.Errorf("%s: DeleteCheckedModes = %v", k.Kind, k.DeleteCheckedModes())
		}
	}
	for _, want := range []string{"MeshTrafficPermission", "MeshTimeout", "Mesh", "MeshMultiZoneService", "MeshGatewayRoute", "MeshService"} {
		if !slices.Contains(zone, want) {
			t.Errorf("%s: DELETE not checked on a zone", want)
		}
	}
	for _, not := range []string{"MeshGateway", "Dataplane", "MeshGatewayInstance", "MeshGatewayConfig", "Server", "HTTPRoute", "AuthorizationPolicy"} {
		if slices.Contains(zone, not) {
			t.Errorf("%s: DELETE checked on a zone; Kuma does not refuse it", not)
		}
	}
}

// TestMutated: only Kuma kinds go through the mutating webhook.
func TestMutated(t *testing.T) {
	for _, k := range DefaultRegistry().Kinds() {
		if got, want := k.Mutated(), k.Family == FamilyKuma; got != want {
			t.Errorf("%s (%s): Mutated = %v, want %v", k.Kind, k.Family, got, want)
		}
	}
}
