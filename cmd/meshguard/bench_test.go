package main

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// corpus builds n realistic policy documents of mixed kinds, roles and namespaces.
func corpus(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		ns := fmt.Sprintf("team-%d", i%50)
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: t-%d\n  namespace: %s\nspec:\n  to:\n    - targetRef:\n        kind: MeshService\n        name: svc-%d\n      default:\n        idleTimeout: 1h\n        http:\n          requestTimeout: 5s\n---\n", i, ns, i)
		case 1:
			fmt.Fprintf(&b, "apiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata:\n  name: p-%d\n  namespace: %s\nspec:\n  targetRef:\n    kind: Dataplane\n    labels:\n      app: svc-%d\n  from:\n    - targetRef:\n        kind: MeshSubset\n        tags:\n          kuma.io/service: caller-%d\n      default:\n        action: Allow\n---\n", i, ns, i, i)
		case 2:
			fmt.Fprintf(&b, "apiVersion: kuma.io/v1alpha1\nkind: MeshHTTPRoute\nmetadata:\n  name: r-%d\n  namespace: %s\nspec:\n  to:\n    - targetRef:\n        kind: MeshService\n        name: svc-%d\n      rules:\n        - matches:\n            - path:\n                type: PathPrefix\n                value: /v2\n          default:\n            backendRefs:\n              - kind: MeshService\n                name: svc-%d-v2\n---\n", i, ns, i, i)
		default:
			fmt.Fprintf(&b, "apiVersion: kuma.io/v1alpha1\nkind: MeshRetry\nmetadata:\n  name: r-%d\n  namespace: kuma-system\nspec:\n  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        http:\n          numRetries: 3\n---\n", i)
		}
	}
	return b.String()
}

// BenchmarkLint10k is `meshguard lint -o json -` over 10,000 documents, in process:
// loading with line numbers, defaulting, validation, RBAC analysis and output.
func BenchmarkLint10k(b *testing.B) {
	const n = 10000
	in := corpus(n)
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		code := run([]string{"lint", "-o", "json", "-"}, streams{in: strings.NewReader(in), out: io.Discard, err: io.Discard})
		if code != exitOK {
			b.Fatalf("exit %d", code)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "docs/s")
}
