package webhook

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumaauthz"
)

// PolicyIndex returns the stored MeshTrafficPermissions filed under one key of
// PolicyIndexKeys. The server backs it with an index of its informer cache
// (client-go's Indexer, through controller-runtime's IndexField), so a preview
// reads the few stored policies that can share a group with the incoming one
// instead of every policy of the cluster, and never calls the API server.
// ok=false means the cache is not available (no CRD, not synced).
type PolicyIndex func(ctx context.Context, key string) (items []unstructured.Unstructured, ok bool)

// PolicyIndexField names the MeshTrafficPermission index of the informer cache.
const PolicyIndexField = "meshguard.io/rbac-target"

// PolicyIndexKeys are the keys a stored MeshTrafficPermission is filed under: those
// of its target (kumaauthz.Target.IndexKeys, with the deployment's system namespace,
// which scopes targets; "" is compile's default, as for the preview). An object
// that does not compile has none: the preview leaves it out, as it always did. The
// informer computes them once per write of the object, not per admission request.
func PolicyIndexKeys(obj *unstructured.Unstructured, systemNamespace string) []string {
	p, err := kumaauthz.PolicyFromObject(obj)
	if err != nil {
		return nil
	}
	if systemNamespace == "" {
		systemNamespace = api.DefaultSystemNS
	}
	return kumaauthz.TargetOf(p, systemNamespace).IndexKeys()
}

// IndexedPolicies is a PolicyIndex over a fixed list of objects, indexed as the
// server's informer indexes the cluster's (client-go's Indexer, keyed by
// namespace/name): for tests, benchmarks and the load test. The objects are
// shared, not copied; the preview only reads them.
func IndexedPolicies(items []unstructured.Unstructured, systemNamespace string) (PolicyIndex, error) {
	idx := toolscache.NewIndexer(toolscache.MetaNamespaceKeyFunc, toolscache.Indexers{
		PolicyIndexField: func(obj any) ([]string, error) {
			u, ok := obj.(*unstructured.Unstructured)
			if !ok {
				return nil, fmt.Errorf("object of type %T is not unstructured", obj)
			}
			return PolicyIndexKeys(u, systemNamespace), nil
		},
	})
	for i := range items {
		if err := idx.Add(&items[i]); err != nil {
			return nil, err
		}
	}
	return func(_ context.Context, key string) ([]unstructured.Unstructured, bool) {
		objs, err := idx.ByIndex(PolicyIndexField, key)
		if err != nil {
			return nil, false
		}
		out := make([]unstructured.Unstructured, len(objs))
		for i, o := range objs {
			out[i] = *o.(*unstructured.Unstructured)
		}
		return out, true
	}, nil
}
