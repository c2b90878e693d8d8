package kumadiff

import (
	"fmt"
	"strings"
	"testing"
)

// benchMesh is a Universal mesh of proxies Dataplanes spread over services
// MeshServices, a mesh-wide MeshTimeout (connectionTimeout as given) and a
// MeshRetry and a MeshCircuitBreaker to each MeshService.
func benchMesh(proxies, services int, connectionTimeout string) string {
	var b strings.Builder
	b.WriteString("type: Mesh\nname: default\nmeshServices:\n  mode: Exclusive\n")
	for i := 0; i < proxies; i++ {
		fmt.Fprintf(&b, "---\ntype: Dataplane\nname: dp-%d\nmesh: default\nnetworking:\n  address: 10.%d.%d.%d\n  inbound:\n    - port: 8080\n      name: http\n      tags:\n        kuma.io/service: svc-%d\n        kuma.io/protocol: http\n", i, i/65536, i/256%256, i%256, i%services)
	}
	for i := 0; i < services; i++ {
		fmt.Fprintf(&b, "---\ntype: MeshService\nname: svc-%d\nmesh: default\nspec:\n  selector:\n    dataplaneTags:\n      kuma.io/service: svc-%d\n  ports:\n    - name: http\n      port: 80\n      targetPort: 8080\n      appProtocol: http\n", i, i)
		fmt.Fprintf(&b, "---\ntype: MeshRetry\nname: mr-%d\nmesh: default\nspec:\n  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        kind: MeshService\n        name: svc-%d\n      default:\n        http:\n          numRetries: %d\n", i, i, i%5+1)
		fmt.Fprintf(&b, "---\ntype: MeshCircuitBreaker\nname: mcb-%d\nmesh: default\nspec:\n  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        kind: MeshService\n        name: svc-%d\n      default:\n        connectionLimits:\n          maxConnections: %d\n", i, i, 100+i)
	}
	fmt.Fprintf(&b, "---\ntype: MeshTimeout\nname: mesh-timeouts\nmesh: default\nspec:\n  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        kind: Mesh\n      default:\n        connectionTimeout: %s\n", connectionTimeout)
	return b.String()
}

// BenchmarkCompare times Compare of two stores that differ in one mesh-wide
// MeshTimeout, stores read beforehand (docs/performance.md has the command).
func BenchmarkCompare(b *testing.B) {
	for _, size := range []struct{ proxies, services int }{{100, 50}, {500, 50}, {5000, 50}} {
		b.Run(fmt.Sprintf("proxies=%d/services=%d", size.proxies, size.services), func(b *testing.B) {
			t := &testing.T{}
			old, now := store(t, benchMesh(size.proxies, size.services, "5s")), store(t, benchMesh(size.proxies, size.services, "2s"))
			for b.Loop() {
				r := Compare(old, now, Options{})
				if len(r.Changes) != size.services || r.Changed != size.proxies {
					b.Fatalf("%d changes on %d proxies", len(r.Changes), r.Changed)
				}
			}
		})
	}
}
