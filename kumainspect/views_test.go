package kumainspect

import (
	"fmt"
	"reflect"
	"strings"
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

// TestViewRoutes: a policy that targets a MeshHTTPRoute shows on the route of
// the outbound the route came from, with the conf Kuma's route _policies
// gives; the outbound keeps its own conf.
func TestViewRoutes(t *testing.T) {
	s := storeOf(t, shop)
	v, err := s.View("default", "web-1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range v.Outbounds {
		for _, r := range p.Routes {
			for _, e := range r.Entries {
				got = append(got, fmt.Sprintf("%s %s %s %s", p.KRI, r.KRI, e.Kind, Inline(e.Conf)))
			}
		}
	}
	want := []string{"kri_msvc_default___backend_http kri_mhttpr_default___to-backend_ MeshTimeout [{\"http\":{\"requestTimeout\":\"1m30s\"}}]"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("routes %q, want %q", got, want)
	}
	var b strings.Builder
	if err := v.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "outbound kri_msvc_default___backend_http route kri_mhttpr_default___to-backend_\n  MeshTimeout\n    http.requestTimeout: 1m30s  ← on-route spec.to[0]") {
		t.Errorf("text shows no route section:\n%s", b.String())
	}
}
