package webhook

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumaauthz"
)

// storedSet is the stored MeshTrafficPermissions as the preview and the widening
// check read them: the index that finds the candidates of a key, and the store
// that reads each stored object once per uid and resourceVersion.
type storedSet struct {
	index PolicyIndex
	read  *previewCache
	// identities lists the stored MeshIdentities (nil: none are read): the
	// proxies a Ready one selects get `rules` policies only.
	identities IdentitySource
}

// IdentitySource lists the MeshIdentities the informer cache holds; it must not
// call the API server.
type IdentitySource func(ctx context.Context) []kumaauthz.Identity

func newStoredSet(index PolicyIndex, read *previewCache) *storedSet {
	return &storedSet{index: index, read: read}
}

// related is an incoming MeshTrafficPermission with the stored policies that
// share a group of proxies with it.
type related struct {
	// incoming is the object's policy; err says why there is none.
	incoming kumaauthz.Policy
	err      error
	// policies is incoming first, then the related stored policies (kumaauthz.Related).
	policies []kumaauthz.Policy
	// listed is false when the index was not usable: policies is incoming alone.
	listed bool
	// identities are the stored MeshIdentities.
	identities []kumaauthz.Identity
}

// relatedOf finds the stored policies that share a group of proxies with p
// (kumaauthz.Related through the index); listed is false when the index is not
// usable.
func (s *storedSet) relatedOf(ctx context.Context, p kumaauthz.Policy) (policies []kumaauthz.Policy, listed bool) {
	listed = true
	policies = kumaauthz.Related(p, s.read.sysNS, func(key string) []kumaauthz.Stored {
		items, ok := s.index(ctx, key)
		if !ok {
			listed = false
			return nil
		}
		return s.read.read(items)
	})
	return policies, listed
}

// related is the incoming object's policy (from spec, validation's decoding of
// obj, when not nil) and the stored policies related to it. Within a request
// scope (WithRequestScope) it is found once for the preview and the widening
// check that share this set; the caller must not modify what it returns.
func (s *storedSet) related(ctx context.Context, obj *unstructured.Unstructured, spec *api.MeshTrafficPermissionSpec) *related {
	scope, _ := ctx.Value(requestScopeKey{}).(*requestScope)
	if scope != nil && scope.set == s && scope.obj == obj && scope.spec == spec {
		return scope.related
	}
	r := &related{}
	if r.incoming, r.err = incomingPolicy(obj, spec); r.err == nil {
		r.policies, r.listed = s.relatedOf(ctx, r.incoming)
		if s.identities != nil {
			r.identities = s.identities(ctx)
		}
	}
	if scope != nil {
		*scope = requestScope{set: s, obj: obj, spec: spec, related: r}
	}
	return r
}

// requestScopeKey is the context key of a request's requestScope.
type requestScopeKey struct{}

// requestScope is what the checks of one admission request share: the
// incoming MeshTrafficPermission's related policies, found by the first check
// that needs them. It lives as long as the request's context and is never
// looked up by content.
type requestScope struct {
	set     *storedSet
	obj     *unstructured.Unstructured
	spec    *api.MeshTrafficPermissionSpec
	related *related
}

// WithRequestScope returns ctx with a scope in which the preview and the
// widening check of one request (NewPreviewAndWidening) find the incoming
// policy's related stored policies once. Handlers.Validate calls it; a context
// without it makes each check find them itself.
func WithRequestScope(ctx context.Context) context.Context {
	return context.WithValue(ctx, requestScopeKey{}, &requestScope{})
}

// MeshIdentityGVK is the kind the MeshIdentity informer caches.
var MeshIdentityGVK = schema.GroupVersionKind{Group: api.KumaGroup, Version: "v1alpha1", Kind: api.KindMeshIdentity}

// StoredIdentities reads the MeshIdentities list returns (an informer cache's
// objects) as compile reads them; an object that does not read is left out.
func StoredIdentities(list func(ctx context.Context) ([]unstructured.Unstructured, bool)) IdentitySource {
	return func(ctx context.Context) []kumaauthz.Identity {
		items, _ := list(ctx)
		out := make([]kumaauthz.Identity, 0, len(items))
		for i := range items {
			if id, err := kumaauthz.IdentityFromObject(&items[i]); err == nil {
				out = append(out, id)
			}
		}
		return out
	}
}
