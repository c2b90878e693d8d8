package lint

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/rules"
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

// sameProxyStream builds n MeshTrafficPermissions that select the same proxies:
// every 30th targets the whole mesh from the system namespace, the others whole
// namespaces or Dataplanes of one of a few apps in one of three namespaces, each
// allowing two callers after denying one.
func sameProxyStream(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		ns, target := fmt.Sprintf("team-%d", i%3), fmt.Sprintf("{kind: Dataplane, labels: {app: app-%d}}", i%5)
		switch {
		case i%30 == 0:
			ns, target = "kuma-system", "{kind: Mesh}"
		case i%6 == 0:
			target = "{kind: Mesh}"
		}
		fmt.Fprintf(&b, "---\napiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata: {name: mtp-%d, namespace: %s}\nspec:\n  targetRef: %s\n  from:\n"+
			"    - {targetRef: {kind: MeshSubset, tags: {kuma.io/service: caller-%d}}, default: {action: Deny}}\n"+
			"    - {targetRef: {kind: MeshSubset, tags: {kuma.io/service: caller-%d, version: v1}}, default: {action: Allow}}\n"+
			"    - {targetRef: {kind: MeshSubset, tags: {kuma.io/service: caller-%d}}, default: {action: Allow}}\n",
			i, ns, target, i%97, i%89, i%83)
	}
	return b.Bytes()
}

// BenchmarkCrossDocumentSameProxy lints n MeshTrafficPermissions that select the
// same proxies, with and without the cross-document stages: the difference is
// what the RBAC analysis costs (it used to grow with the square of n).
func BenchmarkCrossDocumentSameProxy(b *testing.B) {
	s := api.DefaultSettings()
	for _, n := range []int{2000, 10000} {
		data := sameProxyStream(n)
		for _, stages := range []bool{false, true} {
			o := Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry()}
			if stages {
				o.Stages = CrossDocument(s, "default")
			}
			b.Run(fmt.Sprintf("n=%d/stages=%v", n, stages), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_, sum, _ := Run([]string{"-"}, bytes.NewReader(data), LoadOptions{}, o, nil)
					if sum.Documents != n || sum.Errors != 0 {
						b.Fatalf("summary %+v", sum)
					}
				}
			})
		}
	}
}

// inventoryStream builds the workloads and Services policyStream's n policies
// name: a Deployment per policy (app: web-i) and a Service backend per namespace.
func inventoryStream(n int) []byte {
	var b bytes.Buffer
	for i := range 50 {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Service\nmetadata: {name: backend, namespace: team-%d}\nspec:\n  ports: [{name: http, port: 8080}]\n", i)
	}
	for i := range n {
		fmt.Fprintf(&b, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web-%d, namespace: team-%d}\nspec:\n  template:\n    metadata: {labels: {app: web-%d}}\n", i, i%50, i)
	}
	return b.Bytes()
}

// BenchmarkReferences10k lints 10,000 policies whose MeshService and Dataplane
// references all resolve against an inventory of 10,000 workloads and their
// Services, with the reference stage and without it (--no-inventory): the
// difference is what resolution costs, which must stay linear.
func BenchmarkReferences10k(b *testing.B) {
	const n = 10_000
	s := api.DefaultSettings()
	data := policyStream(n)
	invFile := b.TempDir() + "/inventory.yaml"
	if err := os.WriteFile(invFile, inventoryStream(n), 0o644); err != nil {
		b.Fatal(err)
	}
	base := Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry()}
	inv, bad := LoadInventory([]string{invFile}, LoadOptions{}, base)
	if len(bad) > 0 || len(inv.Entries) != n+50 {
		b.Fatalf("inventory: %d entries, %v", len(inv.Entries), bad)
	}
	for _, refs := range []bool{false, true} {
		o := base
		o.Stages = CrossDocumentInventory(s, "default", nil)
		if refs {
			o.Stages = CrossDocumentInventory(s, "default", inv)
		}
		b.Run(fmt.Sprintf("refs=%v", refs), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				fs, sum, _ := Run([]string{"-"}, bytes.NewReader(data), LoadOptions{}, o, nil)
				if sum.Documents != n || sum.Errors != 0 {
					b.Fatalf("summary %+v", sum)
				}
				for _, f := range fs {
					if rules.Number(f.Code)/100 == 4 {
						b.Fatalf("a reference does not resolve: %+v", f)
					}
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}
