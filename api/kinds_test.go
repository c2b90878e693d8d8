package api

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestRegistryAccessors(t *testing.T) {
	r := DefaultRegistry()
	for _, tc := range []struct {
		name string
		got  *Kind
		want schema.GroupVersionKind
	}{
		{"MeshTrafficPermission", r.MeshTrafficPermission(), schema.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshTrafficPermission"}},
		{"LinkerdServer", r.LinkerdServer(), schema.GroupVersionKind{Group: "policy.linkerd.io", Version: "v1beta3", Kind: "Server"}},
		{"Storage ServerAuthorization", r.Storage(LinkerdGroup, KindServerAuthorization), schema.GroupVersionKind{Group: "policy.linkerd.io", Version: "v1beta1", Kind: "ServerAuthorization"}},
	} {
		if tc.got == nil {
			t.Errorf("%s: nil", tc.name)
			continue
		}
		if diff := cmp.Diff(tc.want, tc.got.GVK()); diff != "" {
			t.Errorf("%s: %s", tc.name, diff)
		}
	}
	if k := r.Storage(KumaGroup, "NoSuchKind"); k != nil {
		t.Errorf("Storage of an unknown kind = %v, want nil", k.GVK())
	}
}

// TestWatched pins the informer caches (and so the chart's ClusterRole): one storage
// entry per kind, never a deprecated version.
func TestWatched(t *testing.T) {
	var got []string
	for _, k := range DefaultRegistry().Watched() {
		got = append(got, k.GVK().String())
		if k.Deprecated != "" {
			t.Errorf("%s is deprecated", k.GVK())
		}
	}
	want := []string{
		"kuma.io/v1alpha1, Kind=MeshTrafficPermission",
		"kuma.io/v1alpha1, Kind=MeshTimeout",
		"kuma.io/v1alpha1, Kind=MeshHTTPRoute",
		"kuma.io/v1alpha1, Kind=MeshTCPRoute",
		"kuma.io/v1alpha1, Kind=MeshRetry",
		"kuma.io/v1alpha1, Kind=MeshCircuitBreaker",
		"kuma.io/v1alpha1, Kind=MeshRateLimit",
		"kuma.io/v1alpha1, Kind=MeshFaultInjection",
		"kuma.io/v1alpha1, Kind=MeshAccessLog",
		"kuma.io/v1alpha1, Kind=MeshHealthCheck",
		"kuma.io/v1alpha1, Kind=MeshLoadBalancingStrategy",
		"kuma.io/v1alpha1, Kind=MeshTrace",
		"kuma.io/v1alpha1, Kind=MeshProxyPatch",
		"kuma.io/v1alpha1, Kind=MeshMetric",
		"kuma.io/v1alpha1, Kind=MeshPassthrough",
		"kuma.io/v1alpha1, Kind=MeshTLS",
		"kuma.io/v1alpha1, Kind=MeshIdentity",
		"kuma.io/v1alpha1, Kind=Dataplane",
		"policy.linkerd.io/v1beta3, Kind=Server",
		"policy.linkerd.io/v1beta1, Kind=ServerAuthorization",
		"policy.linkerd.io/v1alpha1, Kind=AuthorizationPolicy",
		"policy.linkerd.io/v1alpha1, Kind=MeshTLSAuthentication",
		"policy.linkerd.io/v1alpha1, Kind=NetworkAuthentication",
		"policy.linkerd.io/v1alpha1, Kind=EgressNetwork",
		"policy.linkerd.io/v1alpha1, Kind=HTTPLocalRateLimitPolicy",
		"policy.linkerd.io/v1beta3, Kind=HTTPRoute",
		"gateway.networking.k8s.io/v1, Kind=HTTPRoute",
		"gateway.networking.k8s.io/v1, Kind=GRPCRoute",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
	if n := len(DefaultRegistry().WatchedIn(KumaGroup)); n != 18 {
		t.Errorf("WatchedIn(kuma.io) has %d kinds, want 18 (the 16 policy kinds, MeshIdentity, Dataplane)", n)
	}
}
