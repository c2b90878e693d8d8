package webhook

import (
	"context"

	"github.com/meshguard/meshguard/linkerdauthz"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/meshguard/meshguard/api"
)

// What --linkerd-server-conflicts accepts.
const (
	ServerConflictsWarn = "warn"
	ServerConflictsDeny = "deny"
)

// ServerGVK is the kind the Server cache watches: the storage version. Every served
// version maps to the one servers.policy.linkerd.io resource, so this sees them all.
var ServerGVK = api.DefaultRegistry().LinkerdServer().GVK()

// LinkerdSource is what the webhook's Linkerd views read: the stored Linkerd
// objects, and the facts of the Linkerd installation that no object carries
// (default inbound policy, cluster networks, trust domain: serve's --linkerd-*
// flags), without which a preview or a widening check would describe a default
// install rather than the cluster's.
type LinkerdSource struct {
	// Stored lists the cached Linkerd policy objects; nil: none are read.
	Stored func(ctx context.Context) []unstructured.Unstructured
	// Namespace reads a cached Namespace with its annotations, whose
	// config.linkerd.io/default-inbound-policy is what the namespace's pods get
	// without a Server; nil: the cluster default stands for every namespace.
	Namespace NamespaceGetter
	// Options are the installation's facts.
	Options linkerdauthz.Options
}

// NamespaceGetter reads one cached Namespace (metadata with annotations);
// ok=false when the cache is not usable or has no such Namespace. It must not call
// the API server.
type NamespaceGetter func(ctx context.Context, name string) (*unstructured.Unstructured, bool)

// LinkerdAuthzGVKs are the kinds, besides Servers, the authorization preview reads
// from informer caches: their storage versions, Linkerd's and the Gateway API routes
// an AuthorizationPolicy may target. A cluster without the Gateway API CRDs gets a
// working webhook all the same (policyCache retries, the preview leaves them out).
func LinkerdAuthzGVKs() []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	reg := api.DefaultRegistry()
	for _, k := range append(reg.WatchedIn(api.LinkerdGroup), reg.WatchedIn(api.GatewayGroup)...) {
		if k.Kind != api.KindServer {
			out = append(out, k.GVK())
		}
	}
	return out
}

// linkerdPreview gives the admission warnings of a Linkerd object: who may reach the
// Servers it affects once it is stored, from the cached Linkerd objects, naming
// only what is stored in the request's namespace and the system namespace.
func (e *Handlers) linkerdPreview(ctx context.Context, obj *unstructured.Unstructured) []string {
	if e.Linkerd.Stored == nil {
		return nil
	}
	stored := e.Linkerd.Stored(ctx)
	kept := stored[:0:0]
	for _, u := range stored {
		if u.GroupVersionKind().GroupKind() == obj.GroupVersionKind().GroupKind() && u.GetNamespace() == obj.GetNamespace() && u.GetName() == obj.GetName() {
			continue // the incoming object replaces its stored version
		}
		kept = append(kept, u)
	}
	// Like the Kuma preview, only the objects of the request's namespace and the
	// system namespace are named; Servers elsewhere are counted.
	ns, sys := obj.GetNamespace(), e.Settings.SystemNamespace
	return linkerdauthz.AdmissionSummaryFor(obj, kept, func(other string) bool { return other == ns || other == sys }, e.Linkerd.Options)
}
