package kumainspect

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// scaleMesh is a Universal mesh of n Dataplanes and MeshServices, n/2 MeshTimeouts
// and n/2 MeshRetries, a quarter of them mesh-wide and the rest to one
// MeshService each (hack/inspect-scale.sh writes the same).
func scaleMesh(n int) string {
	var b strings.Builder
	b.WriteString("type: Mesh\nname: default\nmeshServices:\n  mode: Exclusive\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "---\ntype: Dataplane\nname: dp-%d\nmesh: default\nlabels:\n  app: app-%d\nnetworking:\n  address: 10.0.%d.%d\n  inbound:\n    - port: 8080\n      name: http\n      tags:\n        kuma.io/service: svc-%d\n        kuma.io/protocol: http\n", i, i, i/250, i%250, i)
		fmt.Fprintf(&b, "---\ntype: MeshService\nname: svc-%d\nmesh: default\nspec:\n  selector:\n    dataplaneTags:\n      kuma.io/service: svc-%d\n  ports:\n    - name: http\n      port: 80\n      targetPort: 8080\n      appProtocol: http\n", i, i)
	}
	for i := 1; i <= n/2; i++ {
		to := fmt.Sprintf("kind: MeshService\n        name: svc-%d", i)
		if i%4 == 0 {
			to = "kind: Mesh"
		}
		fmt.Fprintf(&b, "---\ntype: MeshTimeout\nname: mt-%d\nmesh: default\nspec:\n  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        %s\n      default:\n        http:\n          requestTimeout: %ds\n", i, to, i%60+1)
		fmt.Fprintf(&b, "---\ntype: MeshRetry\nname: mr-%d\nmesh: default\nspec:\n  targetRef:\n    kind: Mesh\n  to:\n    - targetRef:\n        %s\n      default:\n        http:\n          numRetries: %d\n", i, to, i%5+1)
	}
	return b.String()
}

// BenchmarkInspect times one proxy's answers over a 1,000-proxy mesh: the store is
// read once, as `meshguard inspect` reads it, then each answer is computed.
func BenchmarkInspect(b *testing.B) {
	in := scaleMesh(1000)
	t := &testing.T{}
	s := storeOf(t, in)
	for name, run := range map[string]func(){
		"rules":    func() { s.Get("/meshes/default/dataplanes/dp-1/_rules") },
		"outbound": func() { s.Get("/meshes/default/dataplanes/dp-1/_outbounds/kri_msvc_default___svc-2_http/_policies") },
		"view": func() {
			if _, err := s.View("default", "dp-1"); err != nil {
				b.Fatal(err)
			}
		},
	} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				run()
			}
		})
	}
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			storeOf(t, in)
		}
	})
}

// BenchmarkViewsOfFile times the View of every proxy of the Universal file named
// by MESHGUARD_INSPECT_FILE (go run ./hack/bench inspect writes them under
// .cache/inspect-scale/), the store read once, so that `go test -cpuprofile` shows
// where `meshguard inspect` of every proxy spends its time. Skipped without it.
func BenchmarkViewsOfFile(b *testing.B) {
	file := os.Getenv("MESHGUARD_INSPECT_FILE")
	if file == "" {
		b.Skip("MESHGUARD_INSPECT_FILE is not set")
	}
	in, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	s := storeOf(&testing.T{}, string(in))
	for b.Loop() {
		n := 0
		if err := s.EachView("", func(View) error { n++; return nil }); err != nil || n == 0 {
			b.Fatalf("%d views, %v", n, err)
		}
	}
}
