package webhook

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meshguard/meshguard/engine"
	"github.com/meshguard/meshguard/linkerd"
)

// cacheLister lists one kind's cached objects in a namespace ("" for all);
// ok=false when the cache is not usable (no CRD, not synced). It must not call the
// API server.
type cacheLister func(ctx context.Context, ns string) ([]unstructured.Unstructured, bool)

// cacheSource is the engine's Source over the webhook's informer caches: what the
// cross-object and reference checks read at admission. A kind without a cache is
// not known, so nothing is reported that rests on its objects' absence.
type cacheSource map[schema.GroupKind]cacheLister

// List implements engine.Source.
func (c cacheSource) List(ctx context.Context, gk schema.GroupKind, ns string) ([]*unstructured.Unstructured, bool) {
	list, ok := c[gk]
	if !ok {
		return nil, false
	}
	items, ok := list(ctx, ns)
	if !ok {
		return nil, false
	}
	out := make([]*unstructured.Unstructured, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out, true
}

// Workloads implements engine.Source: the webhook caches no pod templates (its
// Pod cache holds metadata only).
func (cacheSource) Workloads(context.Context, string) ([]linkerd.Workload, bool) { return nil, false }

// Scope implements engine.Source: the cluster's objects.
func (cacheSource) Scope() engine.Scope { return engine.ScopeCluster }

// file adds the preview's caches to the source, for the kinds it has no lister
// of yet; a nil source (offline) stays nil.
func (c cacheSource) file(caches ...*policyCache) {
	for _, p := range caches {
		if gvk, _, _ := p.kind(); c != nil && c[gvk.GroupKind()] == nil {
			c[gvk.GroupKind()] = p.inNamespace
		}
	}
}

// inNamespace lists a policyCache's objects in ns ("" for all).
func (p *policyCache) inNamespace(ctx context.Context, ns string) ([]unstructured.Unstructured, bool) {
	if ns == "" {
		return p.read(ctx)
	}
	return p.read(ctx, client.InNamespace(ns))
}
