package kumainspect

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/meshguard/meshguard/api"
)

// FuzzInspect feeds arbitrary documents and paths through Decode, NewStore and
// Get (and View): whatever the input, an answer or an error, never a panic.
func FuzzInspect(f *testing.F) {
	inputs, _ := filepath.Glob(filepath.Join(apiCases, "dataplanes", "*", "*.input.yaml"))
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "/meshes/default/dataplanes/dp-1/_rules")
	}
	f.Add([]byte(shop), "/meshes/default/dataplanes/web-1/_outbounds/kri_msvc_default___backend_http/_routes")
	f.Add([]byte("type: Dataplane\nname: x\nnetworking: 5\n"), "/meshes/default/dataplanes/x/_layout")
	reg := api.DefaultRegistry()
	paths := []string{"_rules", "_policies", "_layout", "_config?shadow=true&include=diff",
		"_inbounds/kri_dp_default___x_/_policies", "_outbounds/kri_msvc_default___x_/_policies"}
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		objs, err := Decode(bytes.NewReader(data), "fuzz", reg)
		if err != nil {
			return
		}
		s, err := NewStore(objs, reg, nil) // CRD defaults are not what is fuzzed; compiling them would slow every run

		if err != nil {
			return
		}
		s.Get(path)
		for _, o := range s.objects {
			if o.Type != api.KindDataplane {
				continue
			}
			for _, p := range paths {
				s.Get("/meshes/" + o.Mesh + "/dataplanes/" + o.Name + "/" + p)
			}
			if v, err := s.View(o.Mesh, o.Name); err == nil {
				_ = v.WriteText(&bytes.Buffer{})
			}
		}
	})
}
