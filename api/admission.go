package api

// The operations a webhook is registered for decide what a down meshguard can block
// under failurePolicy Fail. These predicates are the registry's answer, and the
// chart's webhook rules are generated from them (hack/gen-chart-rules), so a request
// meshguard could never answer with anything but "allowed, unchanged" does not wait
// for it.

// Mutated reports whether the mutating webhook can change an object of k. Only
// Kuma kinds get labels and spec defaults (defaults.ApplyChanges writes nothing for
// the other families), so only they are routed to the mutating webhook: a Linkerd
// or Gateway API write never depends on it.
func (k *Kind) Mutated() bool { return k.Family == FamilyKuma }

// DeleteChecked reports whether the validating webhook must see DELETE of k when
// meshguard runs in mode m. Only a federated zone's Kuma refuses users' deletes: of
// the kinds only the global control plane provides (ReadOnlyOn zone) and of objects
// synced from global, for the kinds whose origin label Kuma checks (its targetRef
// policies and plugin resources: not Mesh, MeshGateway, MeshGatewayRoute or
// Dataplane, nor MeshGatewayInstance and MeshGatewayConfig, which Kuma's resource
// admission never sees). meshguard answers the same. No other delete is ever denied,
// so elsewhere DELETE is not routed and a down meshguard never stops anyone deleting
// a policy. The mutating webhook never sees DELETE.
func (k *Kind) DeleteChecked(m Mode) bool {
	if m != ModeZone || k.Family != FamilyKuma {
		return false
	}
	switch k.Kind {
	case KindMeshGatewayInstance, KindMeshGatewayConfig:
		return false
	}
	if k.ReadOnlyOn == ModeZone {
		return true
	}
	switch RefKind(k.Kind) {
	case RefMesh, RefMeshGateway, RefMeshGatewayRoute, RefDataplane:
		return false
	}
	return true
}

// DeleteCheckedModes lists the modes (standalone, zone, global) in which
// DeleteChecked holds for k, for generated webhook rules that choose their
// operations by the chart's mode value.
func (k *Kind) DeleteCheckedModes() []Mode {
	var out []Mode
	for _, m := range []Mode{ModeStandalone, ModeZone, ModeGlobal} {
		if k.DeleteChecked(m) {
			out = append(out, m)
		}
	}
	return out
}
