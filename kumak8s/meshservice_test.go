package kumak8s

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestMeshServicesKuma holds the derived MeshServices to Kuma's own
// MeshServiceReconciler table (meshservice_controller_test.go of kumahq/kuma
// v2.14.3, testdata copied to testdata/kuma-2.14/meshservice): the Service
// demo/example among the objects of each case, compared on name, namespace,
// labels, spec and status.vips (not the owner reference and the store's
// bookkeeping).
func TestMeshServicesKuma(t *testing.T) {
	cases := []struct {
		name           string
		inboundTagsOff bool
		// differs says why meshguard deliberately answers otherwise.
		differs string
	}{
		{name: "01"}, {name: "02"}, {name: "03"}, {name: "04"}, {name: "05"}, {name: "06"},
		{name: "ignore"}, {name: "headless-gateway-disabled"},
		{name: "skip-inbound-tags", inboundTagsOff: true},
		{name: "headless", differs: "Kuma writes one MeshService per Pod endpoint of a headless Service (from its EndpointSlices); manifests have no endpoints, so none is derived"},
	}
	dir := filepath.Join("testdata", "kuma-2.14", "meshservice")
	agree := 0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, c.name+".resources.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			res := Derive(objects(t, strings.TrimPrefix(strings.TrimSpace(string(data)), "---\n")), Options{InboundTagsDisabled: c.inboundTagsOff})
			var got []any
			for _, o := range res.Objects {
				if o.GetKind() == "MeshService" && o.GetNamespace() == "demo" && strings.HasPrefix(o.GetName(), "example") {
					got = append(got, projectMS(o.Object))
				}
			}
			var want struct{ Items []map[string]any }
			raw, err := os.ReadFile(filepath.Join(dir, c.name+".meshservice.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if err := yaml.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			var wantList []any
			for _, w := range want.Items {
				wantList = append(wantList, projectMS(w))
			}
			same := reflect.DeepEqual(normalise(got), normalise(wantList))
			switch {
			case c.differs != "" && same:
				t.Errorf("listed as differing (%s) but agrees with Kuma", c.differs)
			case c.differs != "":
				t.Logf("differs on purpose: %s", c.differs)
			case !same:
				g, _ := yaml.Marshal(got)
				w, _ := yaml.Marshal(wantList)
				t.Errorf("MeshServices differ from Kuma's\n--- got\n%s--- Kuma\n%s", g, w)
			default:
				agree++
			}
		})
	}
	t.Logf("kuma-2.14/meshservice: %d/%d cases agree with Kuma 2.14.3", agree, len(cases))
}

// projectMS keeps what the MeshService generator decides.
func projectMS(ms map[string]any) map[string]any {
	md, _ := ms["metadata"].(map[string]any)
	st, _ := ms["status"].(map[string]any)
	return map[string]any{"name": md["name"], "namespace": md["namespace"], "labels": md["labels"], "spec": ms["spec"], "vips": st["vips"]}
}

// normalise makes JSON-shaped values comparable (int64 and float64 alike).
func normalise(v any) any {
	data, _ := yaml.Marshal(v)
	var out any
	_ = yaml.Unmarshal(data, &out)
	return out
}
