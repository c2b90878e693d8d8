package kumainspect

import (
	"reflect"
	"testing"
)

// TestViewsIsEveryDataplaneView: Views lists every Dataplane of every mesh (meshes,
// then Dataplanes, in name order), each the same View as asked one by one; a mesh
// narrows it, and a mesh that is not in the input is an error.
func TestViewsIsEveryDataplaneView(t *testing.T) {
	s := storeOf(t, `type: Mesh
name: zeta
---
type: Mesh
name: alpha
---
type: Dataplane
name: b
mesh: alpha
networking:
  address: 10.0.0.2
  inbound:
    - port: 8080
      tags:
        kuma.io/service: b
---
type: Dataplane
name: a
mesh: alpha
networking:
  address: 10.0.0.1
  inbound:
    - port: 8080
      tags:
        kuma.io/service: a
---
type: Dataplane
name: c
mesh: zeta
networking:
  address: 10.0.0.3
  inbound:
    - port: 8080
      tags:
        kuma.io/service: c
---
type: MeshTimeout
name: t
mesh: alpha
spec:
  targetRef:
    kind: Mesh
  from:
    - targetRef:
        kind: Mesh
      default:
        idleTimeout: 20s
`)
	all, err := s.Views("")
	if err != nil {
		t.Fatal(err)
	}
	var got [][2]string
	for _, v := range all {
		got = append(got, [2]string{v.Mesh, v.Dataplane})
		one, err := s.View(v.Mesh, v.Dataplane)
		if err != nil || !reflect.DeepEqual(one, v) {
			t.Errorf("%s/%s: Views gives %+v, View %+v (%v)", v.Mesh, v.Dataplane, v, one, err)
		}
	}
	if want := [][2]string{{"alpha", "a"}, {"alpha", "b"}, {"zeta", "c"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Views lists %v, want %v", got, want)
	}
	zeta, err := s.Views("zeta")
	if err != nil || len(zeta) != 1 || zeta[0].Dataplane != "c" {
		t.Errorf("Views(zeta) = %+v, %v", zeta, err)
	}
	if _, err := s.Views("nope"); err == nil {
		t.Error("Views of a mesh that is not in the input: no error")
	}
	if len(all[0].Inbounds) != 1 || len(all[0].Inbounds[0].Entries) != 1 {
		t.Errorf("alpha/a: the mesh-wide MeshTimeout does not reach its inbound: %+v", all[0])
	}
}
