package webhook

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	meshschema "github.com/meshguard/meshguard/schema"
)

// The values of Options.SchemaCheck (--schema-check).
const (
	// SchemaCheckAuto skips the schema layer on admission for the kinds whose
	// installed CRD has the embedded CRD's schema (InstalledSchemas).
	SchemaCheckAuto = "auto"
	// SchemaCheckAlways runs it for every object, as lint does.
	SchemaCheckAlways = "always"
	// SchemaCheckNever never runs it on admission: the API server's check of
	// whatever CRD is installed is the only one.
	SchemaCheckNever = "never"
)

// InstalledSchemas knows which of meshguard's embedded CRDs the cluster has
// installed unchanged. The validating webhook runs after the API server has
// pruned, defaulted and validated the object against its installed CRD; where that
// CRD's schema is the one the schema layer would check against (the same
// schema.SchemaHash), the second pass finds nothing new, and on a 2.9 MB policy it
// was 70% of the bytes a request allocated. A CRD that differs (another mesh
// release, a hand edit) or is not known yet keeps the schema layer.
//
// It watches CRDs' metadata only (a cluster may hold hundreds of large CRDs) and
// reads in full only the embedded ones, when their metadata changes.
type InstalledSchemas struct {
	set *meshschema.Set
	// embedded are the CRDs of set by name.
	embedded map[string]meshschema.EmbeddedCRD
	// installed is the SchemaHash of each embedded CRD as installed, by name;
	// absent until read, and when not installed.
	mu        sync.RWMutex
	installed map[string]string

	meta  metadata.Interface
	crds  apiextensionsclient.Interface
	log   logr.Logger
	queue workqueue.TypedRateLimitingInterface[string]
}

// NewInstalledSchemas watches the installed CRDs of set's kinds through the two
// clients. Start runs it.
func NewInstalledSchemas(set *meshschema.Set, meta metadata.Interface, crds apiextensionsclient.Interface, log logr.Logger) *InstalledSchemas {
	return &InstalledSchemas{set: set, embedded: set.EmbeddedCRDs(), installed: map[string]string{},
		meta: meta, crds: crds, log: log,
		queue: workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())}
}

// Redundant reports whether the API server has already checked objects of gvk
// against the very schema the schema layer holds for it.
func (s *InstalledSchemas) Redundant(gvk schema.GroupVersionKind) bool {
	crd, ok := s.set.CRDOf(gvk)
	if !ok {
		return false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	h, ok := s.installed[crd.Name]
	return ok && h == crd.Hash
}

// crdGVR is the resource of CustomResourceDefinitions.
var crdGVR = apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions")

// Start watches CRD metadata and re-reads an embedded CRD whenever its metadata
// changes, until ctx ends (a manager.Runnable).
func (s *InstalledSchemas) Start(ctx context.Context) error {
	inf := metadatainformer.NewFilteredMetadataInformer(s.meta, crdGVR, "", 0, cache.Indexers{}, nil).Informer()
	// Only the name and resourceVersion are read: the cache keeps no annotations
	// (a CRD applied with kubectl carries a copy of itself in one) or managedFields.
	if err := inf.SetTransform(func(o any) (any, error) {
		if m, err := meta.Accessor(o); err == nil {
			m.SetAnnotations(nil)
			m.SetManagedFields(nil)
			m.SetLabels(nil)
		}
		return o, nil
	}); err != nil {
		return err
	}
	enqueue := func(o any) {
		if m, err := meta.Accessor(o); err == nil {
			if _, ok := s.embedded[m.GetName()]; ok {
				s.queue.Add(m.GetName())
			}
		} else if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
			s.queue.Add(t.Key)
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, DeleteFunc: enqueue,
		UpdateFunc: func(_, o any) { enqueue(o) },
	}); err != nil {
		return err
	}
	go func() {
		<-ctx.Done()
		s.queue.ShutDown()
	}()
	go inf.RunWithContext(ctx)
	for s.next(ctx) {
	}
	return nil
}

// next reads one queued CRD; false once the queue is shut down.
func (s *InstalledSchemas) next(ctx context.Context) bool {
	name, shutdown := s.queue.Get()
	if shutdown {
		return false
	}
	defer s.queue.Done(name)
	if err := s.refresh(ctx, name); err != nil {
		s.log.Error(err, "reading an installed CRD; its kinds keep the schema layer meanwhile", "crd", name)
		s.queue.AddRateLimited(name)
		return true
	}
	s.queue.Forget(name)
	return true
}

// refresh reads CRD name and records its SchemaHash (or forgets it when deleted).
// When the installed schema differs from the embedded one, the schema layer's
// validators for its kinds are built now rather than by the first request that
// needs them.
func (s *InstalledSchemas) refresh(ctx context.Context, name string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	crd, err := s.crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		s.record(name, "")
		return nil
	case err != nil:
		s.record(name, "") // unknown: check
		return err
	}
	h, err := meshschema.SchemaHash(crd)
	if err != nil {
		s.record(name, "")
		return fmt.Errorf("hashing %s: %w", name, err)
	}
	s.record(name, h)
	same := h == s.embedded[name].Hash
	s.log.V(1).Info("installed CRD read", "crd", name, "sameSchema", same)
	if !same {
		s.log.Info("the installed CRD differs from the embedded release's: its kinds get the schema layer on admission", "crd", name)
		if err := s.set.BuildCheckers(name); err != nil {
			s.log.Error(err, "building the schema layer's validators; the kinds are checked without them", "crd", name)
		}
	}
	return nil
}

// record sets the SchemaHash of the installed CRD name; "" forgets it (not
// installed, or not known).
func (s *InstalledSchemas) record(name, hash string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if hash == "" {
		delete(s.installed, name)
		return
	}
	s.installed[name] = hash
}

// NeedLeaderElection is false: every replica answers admission requests.
func (s *InstalledSchemas) NeedLeaderElection() bool { return false }
