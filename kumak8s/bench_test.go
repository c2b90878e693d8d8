package kumak8s

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// benchInput is n Deployments with a Service each, spread over namespaces of
// perNS workloads, all labelled for injection, in a mesh with MeshServices
// Exclusive.
func benchInput(n, perNS int) []*unstructured.Unstructured {
	out := []*unstructured.Unstructured{{Object: map[string]any{"apiVersion": "kuma.io/v1alpha1", "kind": "Mesh",
		"metadata": map[string]any{"name": "default"}, "spec": map[string]any{"meshServices": map[string]any{"mode": "Exclusive"}}}}}
	for i := 0; i < n; i++ {
		ns := fmt.Sprintf("ns-%d", i/perNS)
		if i%perNS == 0 {
			out = append(out, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace",
				"metadata": map[string]any{"name": ns, "labels": map[string]any{"kuma.io/sidecar-injection": "enabled"}}}})
		}
		app := fmt.Sprintf("app-%d", i)
		out = append(out,
			&unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
				"metadata": map[string]any{"name": app, "namespace": ns},
				"spec": map[string]any{"template": map[string]any{
					"metadata": map[string]any{"labels": map[string]any{"app": app, "tier": "web"}},
					"spec": map[string]any{"containers": []any{map[string]any{"name": "app",
						"ports": []any{map[string]any{"name": "http", "containerPort": int64(8080)}}}}}}}}},
			&unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Service",
				"metadata": map[string]any{"name": app, "namespace": ns},
				"spec": map[string]any{"selector": map[string]any{"app": app},
					"ports": []any{map[string]any{"name": "http", "port": int64(80), "targetPort": "http", "appProtocol": "http"}}}}})
	}
	return out
}

// BenchmarkDerive5000 derives 5,000 proxies and 5,000 MeshServices, 500 of each
// per namespace (issue 29's inspect budget is 5,000 proxies).
func BenchmarkDerive5000(b *testing.B) {
	in := benchInput(5000, 500)
	b.ReportAllocs()
	for b.Loop() {
		res := Derive(in, Options{})
		if len(res.Proxies) != 5000 {
			b.Fatalf("%d proxies", len(res.Proxies))
		}
	}
}

// BenchmarkDerive5000OneNamespace is the same with every workload in one
// namespace, where matching Services to pods is quadratic unless indexed.
func BenchmarkDerive5000OneNamespace(b *testing.B) {
	in := benchInput(5000, 5000)
	b.ReportAllocs()
	for b.Loop() {
		if res := Derive(in, Options{}); len(res.Proxies) != 5000 {
			b.Fatalf("%d proxies", len(res.Proxies))
		}
	}
}
