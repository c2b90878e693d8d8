package kumak8s

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// TestPodDataplaneKuma holds PodDataplane to Kuma's own PodConverter table
// (pkg/plugins/runtime/k8s/controllers/pod_converter_test.go of kumahq/kuma
// v2.14.3, its testdata copied to testdata/kuma-2.14): zone zone-1, meshServices
// Exclusive, as that test runs. Only what the derivation writes is compared:
// mesh, labels, and networking's address, inbound, gateway and
// transparentProxying (not the outbounds, metrics and probes Kuma also writes).
func TestPodDataplaneKuma(t *testing.T) {
	cases := []struct {
		name           string
		inboundTagsOff bool
		services       string // the services file when not the case's own
	}{
		{name: "01"}, {name: "02"}, {name: "03"}, {name: "04"}, {name: "05"}, {name: "06"},
		{name: "08"}, {name: "11"}, {name: "12"}, {name: "13"}, {name: "14"}, {name: "15"},
		{name: "17"}, {name: "18"}, {name: "19"}, {name: "21"}, {name: "23"}, {name: "24", services: "08"},
		{name: "25", services: "08"}, {name: "28"}, {name: "29"}, {name: "33"}, {name: "34", inboundTagsOff: true}, {name: "35", inboundTagsOff: true},
		{name: "mismatch-ports"}, {name: "overlapping-inbounds"}, {name: "duplicated-inbounds", inboundTagsOff: true},
	}
	agree := 0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join("testdata", "kuma-2.14")
			var pod corev1.Pod
			decodeKuma(t, filepath.Join(dir, c.name+".pod.yaml"), &pod)
			var svcs []*corev1.Service
			services := c.name
			if c.services != "" {
				services = c.services
			}
			if data, err := os.ReadFile(filepath.Join(dir, services+".services-for-pod.yaml")); err == nil {
				for _, doc := range strings.Split(string(data), "\n---") {
					if strings.TrimSpace(strings.TrimPrefix(doc, "---")) == "" {
						continue
					}
					var s corev1.Service
					decodeKumaBytes(t, []byte(doc), &s)
					svcs = append(svcs, &s)
				}
			}
			got, err := PodDataplane(&pod, svcs, "default", "Exclusive", Options{Zone: "zone-1", InboundTagsDisabled: c.inboundTagsOff})
			if err != nil {
				t.Fatal(err)
			}
			want := readYAML(t, filepath.Join(dir, c.name+".dataplane.yaml"))
			if g, w := project(got), project(want); !reflect.DeepEqual(g, w) {
				gy, _ := yaml.Marshal(g)
				wy, _ := yaml.Marshal(w)
				t.Errorf("Dataplane differs from Kuma's\n--- got\n%s--- Kuma\n%s", gy, wy)
				return
			}
			agree++
		})
	}
	t.Logf("kuma-2.14 PodConverter: %d/%d cases agree with Kuma 2.14.3", agree, len(cases))
}

// project keeps what the derivation writes, as JSON-shaped values.
func project(dp map[string]any) map[string]any {
	md, _ := dp["metadata"].(map[string]any)
	spec, _ := dp["spec"].(map[string]any)
	nw, _ := spec["networking"].(map[string]any)
	keep := map[string]any{}
	for _, k := range []string{"address", "inbound", "gateway", "transparentProxying"} {
		if v, ok := nw[k]; ok {
			keep[k] = v
		}
	}
	out := map[string]any{"mesh": dp["mesh"], "labels": md["labels"], "networking": keep}
	data, _ := yaml.Marshal(out)
	var norm map[string]any
	_ = yaml.Unmarshal(data, &norm)
	return norm
}

func readYAML(t *testing.T, file string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func decodeKuma(t *testing.T, file string, into any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	decodeKumaBytes(t, data, into)
}

// decodeKumaBytes decodes a Kuma test object; annotation values written as
// numbers (15006) are read as the strings Kubernetes stores.
func decodeKumaBytes(t *testing.T, data []byte, into any) {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if md, ok := m["metadata"].(map[string]any); ok {
		if ann, ok := md["annotations"].(map[string]any); ok {
			for k, v := range ann {
				ann[k] = fmt.Sprint(v)
			}
		}
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, into); err != nil {
		t.Fatal(err)
	}
}
