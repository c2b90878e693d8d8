package kumarules

import (
	"fmt"
	"testing"

	"github.com/meshguard/meshguard/api"
)

// benchInput is one Dataplane (4 inbounds of service web-0) and n MeshTimeouts of
// mixed top-level kinds (Mesh, MeshSubset, MeshService web-i for i < 20), each with
// a `to` item for the Mesh and one for MeshService svc-(i mod 200), and 200
// MeshServices and the Mesh for the resource rules.
func benchInput(n int) (Dataplane, []Policy) {
	dp := Dataplane{Meta: Meta{Type: "Dataplane", Name: "dp", Mesh: "default", Labels: map[string]string{}}, Address: "10.0.0.1"}
	for i := range 4 {
		dp.Inbounds = append(dp.Inbounds, Inbound{Address: "10.0.0.1", Port: 8080 + i,
			Tags: map[string]string{serviceTag: "web-0", "version": fmt.Sprint("v", i)}})
	}
	objs := []Policy{{Meta: Meta{Type: api.KindMesh, Name: "default", Labels: map[string]string{}}, Spec: map[string]any{}}}
	for i := range 200 {
		objs = append(objs, Policy{Meta: Meta{Type: refMeshService, Name: fmt.Sprint("svc-", i), Mesh: "default", Labels: map[string]string{}},
			Spec: map[string]any{"ports": []any{map[string]any{"port": int64(80), "name": "http"}}}})
	}
	for i := range n {
		var top map[string]any
		switch i % 3 {
		case 0:
			top = map[string]any{"kind": "Mesh"}
		case 1:
			top = map[string]any{"kind": "MeshSubset", "tags": map[string]any{"version": fmt.Sprint("v", i%4)}}
		default:
			top = map[string]any{"kind": "MeshService", "name": fmt.Sprint("web-", i%20)}
		}
		objs = append(objs, Policy{Meta: Meta{Type: api.KindMeshTimeout, Name: fmt.Sprintf("mt-%05d", i), Mesh: "default", Labels: map[string]string{}},
			Spec: map[string]any{"targetRef": top, "to": []any{
				map[string]any{"targetRef": map[string]any{"kind": "Mesh"}, "default": map[string]any{"idleTimeout": "10s"}},
				map[string]any{"targetRef": map[string]any{"kind": "MeshService", "name": fmt.Sprint("svc-", i%200)},
					"default": map[string]any{"http": map[string]any{"requestTimeout": fmt.Sprint(i%60, "s")}}},
			}}})
	}
	return dp, objs
}

// BenchmarkMatchedPolicies is the cost of one proxy's MeshTimeout answer (which
// policies select it, its `to` rules and resource rules) among n policies.
func BenchmarkMatchedPolicies(b *testing.B) {
	e := New(api.DefaultRegistry())
	for _, n := range []int{200, 2000} {
		dp, objs := benchInput(n)
		b.Run(fmt.Sprint("policies=", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m, err := e.MatchedPolicies(api.KindMeshTimeout, dp, objs)
				if err != nil || len(m.Policies) == 0 || len(m.ToRules.ResourceRules) == 0 {
					b.Fatalf("no answer: %v", err)
				}
			}
		})
	}
}
