package webhook_test

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/kumaauthz"
	"github.com/meshguard/meshguard/webhook"
	"github.com/meshguard/meshguard/webhook/webhooktest"
)

// BenchmarkWidening is the "widens access" check alone for the load generator's
// incoming policy, over the fixture cluster and over it with 200 and 2,000 more
// stored policies that the incoming one shares no group with: what the check adds
// to an admission, and what it costs per stored policy it does not need.
func BenchmarkWidening(b *testing.B) {
	incoming := &unstructured.Unstructured{Object: webhooktest.IncomingPolicy()}
	for _, n := range []int{0, 200, 2000} {
		stored := manyStored(n)
		index, err := webhook.IndexedPolicies(stored, "")
		if err != nil {
			b.Fatal(err)
		}
		w := webhook.NewWidening(index, webhook.LinkerdSource{}, kumaauthz.Options{MaxGroupItems: webhook.DefaultPreviewMaxItems})
		b.Run(map[int]string{0: "fixture", 200: "200-more", 2000: "2000-more"}[n], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if lines := w(context.Background(), incoming, nil, nil); len(lines) != 1 {
					b.Fatalf("lines %q", lines)
				}
			}
		})
	}
}
