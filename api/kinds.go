package api

// The kind names meshguard's code treats specially. The registry entries are built
// from these constants, and every other package compares against them (or asks the
// registry, e.g. MeshTrafficPermission), so no package outside api spells a kind.
const (
	// KindMeshTrafficPermission is the Kuma policy previews compile to Envoy RBAC.
	KindMeshTrafficPermission = "MeshTrafficPermission"
	// KindMeshTimeout is a producer-capable Kuma policy the demo uses as its example.
	KindMeshTimeout = "MeshTimeout"
	// KindMesh is the cluster-scoped Kuma resource every policy belongs to.
	KindMesh = "Mesh"
	// KindDataplane is the Kuma resource of one proxy: `meshguard check` may name
	// one as the destination.
	KindDataplane = "Dataplane"

	// KindServer and the kinds below are Linkerd's policy.linkerd.io authorization
	// family: the authorization preview and the Server conflict check read them.
	KindServer                = "Server"
	KindServerAuthorization   = "ServerAuthorization"
	KindAuthorizationPolicy   = "AuthorizationPolicy"
	KindMeshTLSAuthentication = "MeshTLSAuthentication"
	KindNetworkAuthentication = "NetworkAuthentication"
	// KindHTTPRoute and KindGRPCRoute exist in both policy.linkerd.io and the Gateway
	// API; an AuthorizationPolicy may target either.
	KindHTTPRoute = "HTTPRoute"
	KindGRPCRoute = "GRPCRoute"
)

// GatewayGroup is the Gateway API group, whose routes Linkerd authorization
// policies may target besides its own.
const GatewayGroup = "gateway.networking.k8s.io"

// Core Kubernetes kinds (group "") that Linkerd policies reference or that carry the
// pods they select.
const (
	KindNamespace             = "Namespace"
	KindServiceAccount        = "ServiceAccount"
	KindPod                   = "Pod"
	KindReplicationController = "ReplicationController"
)

// Workload kinds named outside the workload table: KindDeployment is the kind
// `meshguard check` assumes when a destination is named without one; ReplicaSets
// and Jobs, like Pods, are usually owned by a controller whose template a cluster
// reader takes instead.
const (
	KindDeployment = "Deployment"
	KindReplicaSet = "ReplicaSet"
	KindJob        = "Job"
)

// Storage returns the entry of group/kind in its storage version (see
// StorageVersion), nil when the registry does not guard the kind. Caches and
// clients that read stored objects use it: every served version maps to the one
// resource, so the storage version sees them all.
func (r *Registry) Storage(group, kind string) *Kind {
	for _, k := range r.kinds {
		if k.Group == group && k.Kind == kind {
			return k
		}
	}
	return nil
}

// MeshTrafficPermission is the storage entry of Kuma's MeshTrafficPermission, the
// kind whose stored objects the webhook's RBAC preview merges with an incoming one.
func (r *Registry) MeshTrafficPermission() *Kind {
	return r.Storage(KumaGroup, KindMeshTrafficPermission)
}

// LinkerdServer is the storage entry of Linkerd's Server, the kind the Server
// conflict check (MG350) caches.
func (r *Registry) LinkerdServer() *Kind { return r.Storage(LinkerdGroup, KindServer) }

// Watched returns the storage entries of the kinds marked Watched, in registry
// order: the informer caches the webhook keeps and, generated from the same list,
// the chart's ClusterRole grants (get, list, watch) for them.
func (r *Registry) Watched() []*Kind {
	var out []*Kind
	for _, k := range r.kinds {
		if k.Watched && r.StorageVersion(k) {
			out = append(out, k)
		}
	}
	return out
}

// WatchedIn returns the Watched entries of one group, in registry order.
func (r *Registry) WatchedIn(group string) []*Kind {
	var out []*Kind
	for _, k := range r.Watched() {
		if k.Group == group {
			out = append(out, k)
		}
	}
	return out
}
