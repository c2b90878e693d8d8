package webhook

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// policyCache is the informer cache of MeshTrafficPermissions the preview reads (or,
// with gvk set, of another kind: Linkerd Servers for conflict checks). It starts the
// informer without blocking start-up: a cluster without the CRD still gets a working
// webhook, with previews of single policies.
type policyCache struct {
	log logr.Logger
	// gvk is the kind cached, MTPGVK when empty; what and fallback are for the logs.
	gvk            schema.GroupVersionKind
	what, fallback string
	// index, when set, files each object under these keys (PolicyIndexField, an
	// index of the informer's store kept as objects change) for byKey.
	index  func(*unstructured.Unstructured) []string
	cache  atomic.Pointer[cache.Cache]
	synced atomic.Pointer[func() bool]
}

// kind is the cached kind and the words the logs use.
func (p *policyCache) kind() (gvk schema.GroupVersionKind, what, fallback string) {
	if p.gvk.Empty() {
		return MTPGVK, "MeshTrafficPermissions for previews", "previews show single policies"
	}
	return p.gvk, p.what, p.fallback
}

func (p *policyCache) start(ctx context.Context, c cache.Cache) {
	gvk, what, fallback := p.kind()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	for {
		inf, err := c.GetInformer(ctx, u, cache.BlockUntilSynced(false))
		if err == nil && p.index != nil {
			err = c.IndexField(ctx, u, PolicyIndexField, func(o client.Object) []string {
				if u, ok := o.(*unstructured.Unstructured); ok {
					return p.index(u)
				}
				return nil
			})
		}
		if err == nil {
			p.cache.Store(&c)
			hs := inf.HasSynced
			p.synced.Store(&hs)
			p.log.Info("watching " + what)
			return
		}
		p.log.Info(gvk.Kind+" informer not available yet; "+fallback, "reason", err.Error())
		select {
		case <-ctx.Done():
			return
		case <-time.After(30 * time.Second):
		}
	}
}

// list returns the cached policies; ok=false when the cache is not usable yet.
func (p *policyCache) list(ctx context.Context) ([]unstructured.Unstructured, bool) {
	return p.read(ctx)
}

// byKey returns the cached policies filed under key by index (a PolicyIndex);
// ok=false when the cache is not usable yet.
func (p *policyCache) byKey(ctx context.Context, key string) ([]unstructured.Unstructured, bool) {
	return p.read(ctx, client.MatchingFields{PolicyIndexField: key})
}

// read lists the cached objects that opts select.
func (p *policyCache) read(ctx context.Context, opts ...client.ListOption) ([]unstructured.Unstructured, bool) {
	c, synced := p.cache.Load(), p.synced.Load()
	if c == nil || synced == nil || !(*synced)() {
		return nil, false
	}
	gvk, _, _ := p.kind()
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	// The preview only reads the objects, so the cache's own copies are handed out
	// instead of a deep copy of every policy on every request.
	if err := (*c).List(ctx, l, append(opts, client.UnsafeDisableDeepCopy)...); err != nil {
		return nil, false
	}
	return l.Items, true
}

// startCache has the manager start the informer of c once it runs; offline, c
// stays unavailable (its list reports so).
func startCache(mgr manager.Manager, o Options, c *policyCache) error {
	if o.Offline {
		return nil
	}
	return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error { c.start(ctx, mgr.GetCache()); return nil }))
}
