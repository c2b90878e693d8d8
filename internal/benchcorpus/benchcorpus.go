// Package benchcorpus builds the documents of the linter's 10k-document benchmark
// (BenchmarkLint10k) so that the benchmarks that take it apart — the whole door, the
// API server's validator alone (schema), the YAML parse alone (lint) — and
// `go run ./hack/bench lint` all measure the same input.
package benchcorpus

import (
	"fmt"
	"strings"
)

// Kuma builds n realistic Kuma policy documents of mixed kinds, roles and
// namespaces as one multi-document YAML stream: in turn a MeshTimeout producer
// policy, a MeshTrafficPermission on Dataplanes, a MeshHTTPRoute and a mesh-wide
// MeshRetry, in 50 namespaces. Every document is valid: the linter finds nothing.
func Kuma(n int) string {
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

// Documents splits a stream Kuma built into its documents' YAML, without the
// "---" lines between them.
func Documents(stream string) []string {
	parts := strings.Split(stream, "---\n")
	out := parts[:0]
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return out
}
