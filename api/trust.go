package api

import "fmt"

// Who is trusted with the labels that say where a Kuma object comes from, and which
// deletes the validating webhook must see. These are the facts of Kuma 2.14.3's
// ResourceAdmissionChecker (pkg/plugins/runtime/k8s/webhooks/resourceadmissionchecker.go)
// and its wiring (pkg/plugins/runtime/k8s/plugin.go, the chart's
// KUMA_RUNTIME_KUBERNETES_ALLOWED_USERS), kept in one place so that the webhook's
// answer and the chart's rules cannot drift apart.

// ControlPlaneServiceAccount is the service account Kuma's chart runs the control
// plane as; its writes (the sync between global and zones) are trusted.
const ControlPlaneServiceAccount = "kuma-control-plane"

// Kubernetes' own controllers that delete mesh objects for users: the garbage
// collector (owner references: a Mesh's policies go with it) and the namespace
// controller (deleting a namespace deletes what is in it).
const (
	GarbageCollectorUser    = "system:serviceaccount:kube-system:generic-garbage-collector"
	NamespaceControllerUser = "system:serviceaccount:kube-system:namespace-controller"
)

// PrivilegedUsers returns the users whose writes are trusted whatever they change:
// the control plane's service account in the system namespace (as Kuma's chart
// configures it), and the garbage collector, which Kuma always adds. meshguard adds
// the namespace controller as well, so that deleting a namespace that holds synced
// objects (uninstalling the mesh) never hangs on meshguard. extra are the
// --privileged-users, added to these; duplicates are dropped.
func PrivilegedUsers(systemNamespace string, extra []string) []string {
	out := []string{
		fmt.Sprintf("system:serviceaccount:%s:%s", systemNamespace, ControlPlaneServiceAccount),
		GarbageCollectorUser, NamespaceControllerUser,
	}
	for _, u := range extra {
		if u != "" && !contains(out, u) {
			out = append(out, u)
		}
	}
	return out
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// KubernetesOnly reports the Kuma kinds that exist only as Kubernetes objects,
// outside Kuma's resource store (MeshGatewayInstance, MeshGatewayConfig): Kuma's
// resource admission (namespace, read-only and origin rules) never sees them.
func (k *Kind) KubernetesOnly() bool {
	return k.Group == KumaGroup && (k.Kind == KindMeshGatewayInstance || k.Kind == KindMeshGatewayConfig)
}

// OriginChecked reports the Kuma kinds whose kuma.io/origin and kuma.io/zone labels
// Kuma's admission checks against the mode: the targetRef policies and the resources
// of its plugin API (Kuma's IsPluginOriginated), not Mesh, MeshGateway,
// MeshGatewayRoute or Dataplane, nor the Kubernetes-only kinds.
func (k *Kind) OriginChecked() bool {
	if k.Family != FamilyKuma || k.KubernetesOnly() {
		return false
	}
	switch RefKind(k.Kind) {
	case RefMesh, RefMeshGateway, RefMeshGatewayRoute, RefDataplane:
		return false
	}
	return true
}

// DeleteGuarded reports whether the validating webhook must see DELETE of this kind
// on a control plane of the given mode: on a federated zone, Kuma refuses users'
// deletes of the kinds global provides (ReadOnlyOn) and of the objects synced from
// global (OriginChecked kinds); meshguard checks the same (validate.Delete). On
// other modes meshguard does not intercept DELETE (see docs/conformance.md).
func (k *Kind) DeleteGuarded(mode Mode) bool {
	if mode != ModeZone || k.Family != FamilyKuma || k.KubernetesOnly() {
		return false
	}
	return k.ReadOnlyOn == ModeZone || k.OriginChecked()
}

// DeleteGuarded returns the entries whose DELETE the validating webhook must see on
// a control plane of the given mode (Kind.DeleteGuarded), in registry order; the
// chart's webhook rules are generated from it.
func (r *Registry) DeleteGuarded(mode Mode) []*Kind {
	var out []*Kind
	for _, k := range r.kinds {
		if k.DeleteGuarded(mode) {
			out = append(out, k)
		}
	}
	return out
}
