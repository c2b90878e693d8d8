package api

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestComputeRole(t *testing.T) {
	to := func(refs ...ToRef) Shape { return Shape{HasTo: true, To: refs} }
	cases := []struct {
		name string
		s    Shape
		ns   string
		want RoleResult
	}{
		{"system namespace", to(ToRef{Kind: "Mesh"}), "kuma-system", RoleResult{Role: RoleSystem}},
		{"no to", Shape{}, "a", RoleResult{Role: RoleWorkloadOwner}},
		{"from only", Shape{HasFrom: true}, "a", RoleResult{Role: RoleWorkloadOwner}},
		{"own service by name", to(ToRef{Kind: "MeshService", Name: "b"}), "a", RoleResult{Role: RoleProducer, Producers: []int{0}}},
		{"own route", to(ToRef{Kind: "MeshHTTPRoute", Name: "r", Namespace: "a"}), "a", RoleResult{Role: RoleProducer, Producers: []int{0}}},
		{"kind Mesh is consumer", to(ToRef{Kind: "Mesh"}), "a", RoleResult{Role: RoleConsumer, Consumers: []int{0}}},
		{"labels are consumer", to(ToRef{Kind: "MeshService", Labels: true}), "a", RoleResult{Role: RoleConsumer, Consumers: []int{0}}},
		{"mixed", to(ToRef{Kind: "MeshService", Name: "b"}, ToRef{Kind: "MeshService", Name: "c", Namespace: "z"}), "a",
			RoleResult{Producers: []int{0}, Consumers: []int{1}}},
		{"from and to", Shape{HasFrom: true, HasTo: true, To: []ToRef{{Kind: "Mesh"}}}, "a", RoleResult{FromAndTo: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ComputeRole(tc.s, tc.ns, "kuma-system")); diff != "" {
				t.Error(diff)
			}
		})
	}
}
