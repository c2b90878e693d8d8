package webhook_test

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/kumaauthz"
	"github.com/meshguard/meshguard/webhook"
	"github.com/meshguard/meshguard/webhook/webhooktest"
)

// manyStored adds n stored workload-owner policies, each on its own app in one
// namespace, to the fixture cluster: the shape `bench apilatency` (hack/bench) measures through the
// real API server, where each new policy joins no stored group.
func manyStored(n int) []unstructured.Unstructured {
	out := webhooktest.StoredPolicies()
	for i := range n {
		out = append(out, unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "kuma.io/v1alpha1",
			"kind":       "MeshTrafficPermission",
			"metadata": map[string]any{
				"name": fmt.Sprintf("lat-%d", i), "namespace": "latency-ns",
				"uid":             fmt.Sprintf("7f1c2a4e-0000-4000-8000-%012d", i),
				"resourceVersion": fmt.Sprint(200000 + i),
				"labels":          map[string]any{"kuma.io/mesh": "default", "kuma.io/policy-role": "workload-owner", "k8s.kuma.io/namespace": "latency-ns"},
			},
			"spec": map[string]any{
				"targetRef": map[string]any{"kind": "Dataplane", "labels": map[string]any{"app": fmt.Sprintf("app-%d", i)}},
				"from": []any{map[string]any{
					"targetRef": map[string]any{"kind": "MeshSubset", "tags": map[string]any{"kuma.io/service": fmt.Sprintf("client-%d", i)}},
					"default":   map[string]any{"action": "Allow"},
				}},
			},
		}})
	}
	return out
}

// BenchmarkValidateMTPManyStored is BenchmarkValidateMTPUnique with many more
// stored policies that the new ones do not join (220 and 1,000 in all, the load
// test's 20 included): what the preview costs per stored policy it does not need.
// The time should not grow with the stored set.
func BenchmarkValidateMTPManyStored(b *testing.B) {
	reviews, err := webhooktest.NewReviews(cycle)
	if err != nil {
		b.Fatal(err)
	}
	reqs := requests(b, 1, reviews...)
	base := len(webhooktest.StoredPolicies())
	for _, total := range []int{220, 1000} {
		b.Run(fmt.Sprintf("stored=%d", total), func(b *testing.B) {
			eng, err := webhooktest.NewHandlers(manyStored(total - base))
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if resp := eng.Validate(ctx, reqs[i%len(reqs)]); !resp.Allowed {
					b.Fatal("denied")
				}
				i++
			}
		})
	}
}

// ownAppPolicy is the policy `bench apilatency` (hack/bench) applies: a new workload-owner
// MeshTrafficPermission in latency-ns letting one client reach its own app, so
// that it joins no stored group.
func ownAppPolicy(i int) map[string]any {
	return map[string]any{
		"apiVersion": "kuma.io/v1alpha1",
		"kind":       "MeshTrafficPermission",
		"metadata":   map[string]any{"name": fmt.Sprintf("lat-new-%d", i), "namespace": "latency-ns", "uid": "00000000-0000-4000-8000-000000000000"},
		"spec": map[string]any{
			"targetRef": map[string]any{"kind": "Dataplane", "labels": map[string]any{"app": fmt.Sprintf("new-app-%d", i)}},
			"from": []any{map[string]any{
				"targetRef": map[string]any{"kind": "MeshSubset", "tags": map[string]any{"kuma.io/service": fmt.Sprintf("new-client-%d", i)}},
				"default":   map[string]any{"action": "Allow"},
			}},
		},
	}
}

// BenchmarkValidateMTPOwnApp is a review in the shape `bench apilatency` (hack/bench) measures
// through the real API server: a CREATE of a policy on an app no stored policy
// selects (ownAppPolicy), with 1,000 stored policies that each select their own
// app, through controller-runtime's admission webhook, with the preview and the
// widening check built as the server builds them (NewPreviewAndWidening). Nothing but the object itself is compiled, so what it shows is
// the handler's own cost per request: decoding, validation, the preview's and the
// widening check's fixed costs.
func BenchmarkValidateMTPOwnApp(b *testing.B) {
	stored := manyStored(1000 - len(webhooktest.StoredPolicies()))
	eng, err := webhooktest.NewHandlers(stored)
	if err != nil {
		b.Fatal(err)
	}
	index, err := webhook.IndexedPolicies(stored, eng.Settings.SystemNamespace)
	if err != nil {
		b.Fatal(err)
	}
	// As the server builds them: one store for both.
	eng.Preview, eng.Widening = webhook.NewPreviewAndWidening(index, webhook.LinkerdSource{}, kumaauthz.Options{Form: kumaauthz.FormExpanded,
		MaxExpandedRules: 64, SystemNamespace: eng.Settings.SystemNamespace, MaxGroupItems: webhook.DefaultPreviewMaxItems})
	bodies := make([][]byte, cycle)
	for i := range bodies {
		r, err := webhooktest.NewReviewOf(ownAppPolicy(i))
		if err != nil {
			b.Fatal(err)
		}
		bodies[i] = r.Body(fmt.Sprintf("00000000-0000-4000-8000-%012d", i))
	}
	serveBodies(b, webhooktest.ControllerRuntime(eng.Validate), bodies)
}
