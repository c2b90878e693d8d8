package lint

import (
	"bytes"
	"fmt"
	"testing"
)

// policyStream builds n small Kuma policies as one multi-document YAML stream.
func policyStream(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `---
apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: timeout-%d
  namespace: team-%d
  labels:
    kuma.io/mesh: default
spec:
  targetRef:
    kind: Dataplane
    labels:
      app: web-%d
  to:
    - targetRef:
        kind: MeshService
        name: backend
        namespace: team-%d
      default:
        connectTimeout: 5s
        http:
          requestTimeout: 10s
`, i, i%50, i, i%50)
	}
	return b.Bytes()
}

// BenchmarkLoad10k loads 10,000 policy documents from one stream; the linter's
// throughput budget (docs/performance.md) starts with this number.
func BenchmarkLoad10k(b *testing.B) {
	const n = 10_000
	data := policyStream(n)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		docs := LoadBytes("bench.yaml", data)
		if len(docs) != n || docs[n-1].Err != nil {
			b.Fatalf("loaded %d documents, last %+v", len(docs), docs[len(docs)-1])
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}
