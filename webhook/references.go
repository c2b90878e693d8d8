package webhook

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/refs"
)

// RefLister lists the cached objects of one reference class in a namespace ("" for
// every namespace, or a cluster-scoped class); ok=false when the class's cache is
// not usable (no CRD, not synced yet). It must not call the API server.
type RefLister func(ctx context.Context, class refs.Class, namespace string) (items []unstructured.Unstructured, ok bool)

// references are the admission warnings of references that resolve to nothing in
// the cluster (MG401-MG449), never denials: the order of applies varies. Only the
// classes and namespaces a reference needs are listed from the caches, so the cost
// follows the object, not the cluster. A reference is skipped when a cache it
// needs is not usable, and when it needs every namespace's Pods or Services (a
// system-wide Dataplane selector, a MeshService label selection): listing those
// on every request would cost what the cluster holds.
func (e *Handlers) references(ctx context.Context, obj *unstructured.Unstructured) field.ErrorList {
	if e.RefObjects == nil {
		return nil
	}
	opts := refs.OptionsFrom(e.Settings)
	all := refs.Extract(obj, opts)
	if len(all) == 0 {
		return nil
	}
	inv := refs.NewInventory()
	listed := map[refs.Need]bool{} // false: not usable
	var kept []refs.Ref
	for _, r := range all {
		ok := true
		for _, n := range refs.Needs(r) {
			if n.Namespace == "" && (n.Class == refs.ClassPod || n.Class == refs.ClassService) {
				ok = false
				break
			}
			usable, seen := listed[n]
			if !seen {
				var items []unstructured.Unstructured
				items, usable = e.RefObjects(ctx, n.Class, n.Namespace)
				listed[n] = usable
				for i := range items {
					inv.AddObject(&items[i])
				}
			}
			ok = ok && usable
		}
		if ok {
			kept = append(kept, r)
		}
	}
	var out field.ErrorList
	for _, p := range (refs.Resolver{Inv: inv, Opts: opts, Source: refs.SourceCluster}).Check(kept) {
		out = append(out, &field.Error{Type: field.ErrorTypeInvalid, Field: p.Path, BadValue: field.OmitValueType{}, Detail: p.Message, Origin: p.Code})
	}
	return out
}

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
// returns the lister over them, and a reader of one Namespace (with its
// annotations) from the same cache; offline both are nil (no reference checks).
func startRefCaches(mgr manager.Manager, o Options, log logr.Logger) (RefLister, NamespaceGetter, error) {
	if o.Offline {
		return nil, nil, nil
	}
	caches := map[refs.Class]*refCache{}
	for _, w := range refs.WatchedKinds(api.DefaultRegistry()) {
		c := &refCache{w: w, log: log.WithName("ref-cache")}
		caches[w.Class] = c
		if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error { c.start(ctx, mgr.GetCache()); return nil })); err != nil {
			return nil, nil, err
		}
	}
	list := func(ctx context.Context, class refs.Class, ns string) ([]unstructured.Unstructured, bool) {
		c, ok := caches[class]
		if !ok {
			return nil, false
		}
		return c.list(ctx, ns)
	}
	var namespace NamespaceGetter
	if c, ok := caches[refs.ClassNamespace]; ok {
		namespace = c.namespace
	}
	return list, namespace, nil
}
