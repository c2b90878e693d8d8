package schema_test

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/schema"
	"github.com/meshguard/meshguard/webhook/webhooktest"
)

// BenchmarkCheckLargePolicy is the schema layer's cost per byte: Set.Check of the
// 2.9 MB MeshTrafficPermission of issue 27 (webhooktest.LargePolicy), already decoded,
// reported as bytes allocated per byte of the object's JSON (alloc-B/in-B) beside
// B/op. docs/performance.md ("The schema layer's cost per byte") records it.
func BenchmarkCheckLargePolicy(b *testing.B) {
	s, err := schema.Load(schema.KumaRelease(schema.DefaultKumaVersion))
	if err != nil {
		b.Fatal(err)
	}
	m := webhooktest.LargePolicy()
	data, err := json.Marshal(m)
	if err != nil {
		b.Fatal(err)
	}
	obj := &unstructured.Unstructured{Object: m}
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n := 0
	for b.Loop() {
		if res, _ := s.Check(ctx, obj); len(res.Errors) > 0 {
			b.Fatal(res.Errors[0])
		}
		n++
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n)/float64(len(data)), "alloc-B/in-B")
}
