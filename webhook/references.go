package webhook

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/refs"
)

// refCache is the informer cache of one kind references name: whole objects, or
// metadata only (refs.Watch.MetadataOnly). Like policyCache it starts without
// blocking start-up, so a cluster without the kind's CRD still gets a webhook.
type refCache struct {
	w      refs.Watch
	log    logr.Logger
	cache  atomic.Pointer[cache.Cache]
	synced atomic.Pointer[func() bool]
}

func (r *refCache) start(ctx context.Context, c cache.Cache) {
	var o client.Object
	if r.w.MetadataOnly {
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(r.w.GVK)
		o = m
	} else {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(r.w.GVK)
		o = u
	}
	for {
		inf, err := c.GetInformer(ctx, o, cache.BlockUntilSynced(false))
		if err == nil {
			r.cache.Store(&c)
			hs := inf.HasSynced
			r.synced.Store(&hs)
			r.log.Info("watching " + r.w.GVK.Kind + "s for reference checks")
			return
		}
		r.log.Info(r.w.GVK.Kind+" informer not available yet; references to it are not checked meanwhile", "reason", err.Error())
		select {
		case <-ctx.Done():
			return
		case <-time.After(30 * time.Second):
		}
	}
}

// list returns the cached objects in namespace ns ("" for all); metadata-only
// objects come back as unstructured objects with apiVersion, kind and metadata.
func (r *refCache) list(ctx context.Context, ns string) ([]unstructured.Unstructured, bool) {
	c, synced := r.cache.Load(), r.synced.Load()
	if c == nil || synced == nil || !(*synced)() {
		return nil, false
	}
	gvk := r.w.GVK
	opts := []client.ListOption{client.UnsafeDisableDeepCopy}
	if ns != "" {
		opts = append(opts, client.InNamespace(ns))
	}
	if !r.w.MetadataOnly {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := (*c).List(ctx, l, opts...); err != nil {
			return nil, false
		}
		return l.Items, true
	}
	l := &metav1.PartialObjectMetadataList{}
	l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err := (*c).List(ctx, l, opts...); err != nil {
		return nil, false
	}
	out := make([]unstructured.Unstructured, len(l.Items))
	for i := range l.Items {
		m := &l.Items[i]
		meta := map[string]any{"name": m.Name}
		if m.Namespace != "" {
			meta["namespace"] = m.Namespace
		}
		if len(m.Labels) > 0 {
			labels := make(map[string]any, len(m.Labels))
			for k, v := range m.Labels {
				labels[k] = v
			}
			meta["labels"] = labels
		}
		out[i].Object = map[string]any{"apiVersion": gvk.GroupVersion().String(), "kind": gvk.Kind, "metadata": meta}
	}
	return out, true
}

// namespace reads one Namespace from the cache, with its annotations (which
// list leaves out: reference checks need names and labels only); ok=false when
// the cache is not usable or holds no such Namespace.
func (r *refCache) namespace(ctx context.Context, name string) (*unstructured.Unstructured, bool) {
	c, synced := r.cache.Load(), r.synced.Load()
	if c == nil || synced == nil || !(*synced)() || !r.w.MetadataOnly {
		return nil, false
	}
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(r.w.GVK)
	if err := (*c).Get(ctx, client.ObjectKey{Name: name}, m); err != nil {
		return nil, false
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(r.w.GVK)
	u.SetName(m.Name)
	u.SetLabels(m.Labels)
	u.SetAnnotations(m.Annotations)
	return u, true
}

// startRefCaches has the manager start an informer per kind references name and
// returns them as a Source, with a reader of one Namespace (with its annotations)
// from the same cache; offline both are nil (no cache answers).
func startRefCaches(mgr manager.Manager, o Options, log logr.Logger) (cacheSource, NamespaceGetter, error) {
	if o.Offline {
		return nil, nil, nil
	}
	src := cacheSource{}
	var namespace NamespaceGetter
	for _, w := range refs.WatchedKinds(api.DefaultRegistry()) {
		c := &refCache{w: w, log: log.WithName("ref-cache")}
		src[w.GVK.GroupKind()] = c.list
		if w.Class == refs.ClassNamespace {
			namespace = c.namespace
		}
		if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error { c.start(ctx, mgr.GetCache()); return nil })); err != nil {
			return nil, nil, err
		}
	}
	return src, namespace, nil
}
