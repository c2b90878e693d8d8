package lint

import (
	"testing"

	"github.com/meshguard/meshguard/api"
)

// TestSpecTableSharesOnlyEqualSpecs: a spec is shared only with one
// reflect.DeepEqual to it; JSON alone would take a nil list for an empty one.
func TestSpecTableSharesOnlyEqualSpecs(t *testing.T) {
	var tbl specTable
	mesh := api.MeshTrafficPermissionSpec{TargetRef: &api.TargetRef{Kind: api.RefMesh}}
	first := tbl.share(specKey(&mesh), mesh)
	again := mesh
	again.TargetRef = &api.TargetRef{Kind: api.RefMesh}
	if got := tbl.share(specKey(&again), again); got != first {
		t.Errorf("an equal spec was not shared")
	}
	empty := mesh
	empty.From = []api.MTPFrom{}
	if specKey(&empty) != specKey(&mesh) {
		t.Fatalf("the keys differ; the test needs specs whose JSON is the same")
	}
	if got := tbl.share(specKey(&empty), empty); got == first || got.From == nil {
		t.Errorf("a spec with an empty list was given the one with none")
	}
}
