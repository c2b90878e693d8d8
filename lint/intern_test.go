package lint

import (
	"testing"

	"github.com/meshguard/meshguard/api"
)

// TestSpecTableSharesOnlyEqualSpecs: a spec is shared only with one
// reflect.DeepEqual to it, not with one of the same shape or the same JSON
// (a nil list and an empty one).
func TestSpecTableSharesOnlyEqualSpecs(t *testing.T) {
	var tbl specTable
	mesh := api.MeshTrafficPermissionSpec{TargetRef: &api.TargetRef{Kind: api.RefMesh}}
	first := tbl.share(mesh)
	again := mesh
	again.TargetRef = &api.TargetRef{Kind: api.RefMesh}
	if got := tbl.share(again); got != first {
		t.Errorf("an equal spec was not shared")
	}
	empty := mesh
	empty.From = []api.MTPFrom{}
	if got := tbl.share(empty); got == first || got.From == nil {
		t.Errorf("a spec with an empty list was given the one with none")
	}
	tagged := mesh
	tagged.TargetRef = &api.TargetRef{Kind: api.RefMesh, Labels: map[string]string{"a": "b"}}
	if got := tbl.share(tagged); got == first || got.TargetRef.Labels["a"] != "b" {
		t.Errorf("a spec of the same shape with other labels was given another")
	}
}
