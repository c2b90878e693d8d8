package refs

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/meshguard/meshguard/api"
)

// Watch is a kind the webhook keeps an informer cache of so that references can be
// resolved at admission. The chart's RBAC (hack/gen-chart-rules) grants get, list
// and watch on exactly these kinds (plus the registry's Watched ones), so a new
// cache cannot lack its grant.
type Watch struct {
	Class  Class
	GVK    schema.GroupVersionKind
	Plural string
	// MetadataOnly kinds are cached as metadata (name, namespace, labels): all
	// the checks read of them, and a fraction of a Pod's memory.
	MetadataOnly bool
}

// WatchedKinds are the kinds references can name, at the versions reg stores:
// Kuma's referenced kinds, Linkerd's and the Gateway API's (which the
// authorization preview caches as well; informers are shared), Services (whole:
// their ports matter) and, metadata only, Pods, Namespaces and ServiceAccounts.
func WatchedKinds(reg *api.Registry) []Watch {
	var out []Watch
	for _, c := range []Class{ClassMesh, ClassMeshService, ClassMeshExternal, ClassMeshMultiZone, ClassMeshGateway, ClassMeshHTTPRoute, ClassMeshOTelBackend,
		ClassOf(api.LinkerdGroup, api.KindServer), ClassOf(api.LinkerdGroup, api.KindHTTPRoute),
		ClassOf(api.LinkerdGroup, api.KindMeshTLSAuthentication), ClassOf(api.LinkerdGroup, api.KindNetworkAuthentication),
		ClassOf(api.GatewayGroup, api.KindHTTPRoute), ClassOf(api.GatewayGroup, api.KindGRPCRoute)} {
		if k := reg.Storage(c.Group(), c.Kind()); k != nil {
			out = append(out, Watch{Class: c, GVK: k.GVK(), Plural: k.Plural})
		}
	}
	return append(out,
		Watch{Class: ClassService, GVK: schema.GroupVersionKind{Version: "v1", Kind: api.KindService}, Plural: "services"},
		Watch{Class: ClassPod, GVK: schema.GroupVersionKind{Version: "v1", Kind: api.KindPod}, Plural: "pods", MetadataOnly: true},
		Watch{Class: ClassNamespace, GVK: schema.GroupVersionKind{Version: "v1", Kind: api.KindNamespace}, Plural: "namespaces", MetadataOnly: true},
		Watch{Class: ClassServiceAccount, GVK: schema.GroupVersionKind{Version: "v1", Kind: api.KindServiceAccount}, Plural: "serviceaccounts", MetadataOnly: true})
}

// Need is a class in a namespace ("" for every namespace, or for cluster-scoped
// classes) whose objects the inventory must hold to resolve a reference.
type Need struct {
	Class     Class
	Namespace string
}

// Needs are what the inventory must hold to judge ref: a doorway that fills an
// inventory on demand (the webhook) lists exactly these.
func Needs(ref Ref) []Need {
	if ref.GrantFrom != "" {
		return []Need{{ClassReferenceGrant, ref.Namespace}}
	}
	if ref.Selector != nil {
		if ref.Class == ClassMeshService {
			return []Need{{ClassMeshService, ""}, {ClassService, ""}, {ClassMesh, ""}}
		}
		if ref.Class == ClassPod {
			return []Need{{ClassPod, ref.Namespace}}
		}
		return []Need{{ref.Class, ""}}
	}
	switch ref.Class {
	case ClassMeshService:
		if svc, ns, _, ok := legacyName(ref.Name); ok && svc != "" {
			return []Need{{ClassService, ns}}
		}
		return []Need{{ClassMeshService, ref.Namespace}, {ClassService, ref.Namespace}, {ClassMesh, ""}}
	}
	if ref.Class.ClusterScoped() {
		return []Need{{ref.Class, ""}}
	}
	return []Need{{ref.Class, ref.Namespace}}
}
