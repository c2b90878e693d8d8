package api

import (
	"fmt"
	"slices"
)

// Who is trusted with the labels that say where a Kuma object comes from, and which
// deletes the validating webhook must see. These are the facts of Kuma 2.14.3's
// ResourceAdmissionChecker (pkg/plugins/runtime/k8s/webhooks/resourceadmissionchecker.go)
// and its wiring (pkg/plugins/runtime/k8s/plugin.go, the chart's
// KUMA_RUNTIME_KUBERNETES_ALLOWED_USERS). The chart's matchConditions list the same
// users (meshguard.trustedDeleters in charts/meshguard/templates/_helpers.tpl).

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
		if u != "" && !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	return out
}

// KubernetesOnly reports the Kuma kinds that exist only as Kubernetes objects,
// outside Kuma's resource store (MeshGatewayInstance, MeshGatewayConfig): Kuma's
// resource admission (namespace, read-only and origin rules) never sees them. Which
// deletes the validating webhook must see is Kind.DeleteChecked (api/admission.go).
func (k *Kind) KubernetesOnly() bool {
	return k.Group == KumaGroup && (k.Kind == KindMeshGatewayInstance || k.Kind == KindMeshGatewayConfig)
}
