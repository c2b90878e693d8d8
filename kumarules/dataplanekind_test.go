package kumarules

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
)

// metaLabels stamps the labels of one of Kuma's test placements (zone-uni, zone-k8s,
// global-uni, global-k8s) under an object's own, as its BuildMeta functions do.
func metaLabels(place, mesh string, own map[string]string) map[string]string {
	l := map[string]string{}
	switch place {
	case "global-uni":
		l["kuma.io/origin"] = "global"
	case "global-k8s":
		l["kuma.io/origin"], l[api.LabelNamespace], l[api.LabelMesh] = "global", "ns-k8s", mesh
	case "zone-uni":
		l["kuma.io/origin"], l[labelZone] = "zone", "zone-uni"
	case "zone-k8s":
		l["kuma.io/origin"], l[labelZone], l[api.LabelNamespace], l[api.LabelMesh] = "zone", "zone-k8s", "ns-k8s", mesh
	}
	for k, v := range own {
		l[k] = v
	}
	return l
}

// dataplaneKindVariant is one entry of Kuma's "should match by kind Dataplane" table:
// where the Dataplane and the policies were created, and the role wrapper of the
// policies ("system" also moves them to kuma-system). A synced copy differs from
// its original only by its stored name, which matching does not read.
type dataplaneKindVariant struct{ dp, policy, role string }

func dataplaneKindVariants() map[string]dataplaneKindVariant {
	return map[string]dataplaneKindVariant{
		"uni-zone": {"zone-uni", "zone-uni", ""},
		"k8s-zone": {"zone-k8s", "zone-k8s", ""},
		"policy-from-global-uni-zone-uni-on-global": {"zone-uni", "global-uni", "system"},
		"policy-from-global-uni-zone-uni-on-zone":   {"zone-uni", "global-uni", "system"},
		"policy-from-global-uni-zone-k8s-on-zone":   {"zone-k8s", "global-uni", "system"},
		"policy-from-global-uni-zone-k8s-on-global": {"zone-k8s", "global-uni", "system"},
		"policy-from-global-k8s-zone-uni-on-zone":   {"zone-uni", "global-k8s", "system"},
		"policy-from-global-k8s-zone-uni-on-global": {"zone-uni", "global-k8s", "system"},
		"policy-from-global-k8s-zone-k8s-on-zone":   {"zone-k8s", "global-k8s", "system"},
		"policy-from-global-k8s-zone-k8s-on-global": {"zone-k8s", "global-k8s", "system"},
		"policy-global-uni-dpp-k8s-on-zone":         {"zone-uni", "global-uni", "system"},
		"policy-global-uni-dpp-k8s-on-global":       {"zone-uni", "global-uni", "system"},
		"policy-from-k8s-to-uni":                    {"zone-uni", "zone-k8s", "producer"},
		"policy-from-k8s-to-k8s":                    {"zone-k8s", "zone-k8s", "producer"},
	}
}

func TestKumaDataplaneKindConformance(t *testing.T) {
	e := New(api.DefaultRegistry())
	const folder = "matchers/dataplane-kind"
	dps, _ := filepath.Glob(filepath.Join(conformanceDir, folder, "*.dataplane.yaml"))
	if len(dps) == 0 {
		t.Fatalf("no cases under %s/%s", conformanceDir, folder)
	}
	agree, total, allowed := 0, 0, notAgreeing(t)
	variants := dataplaneKindVariants()
	for _, dpFile := range dps {
		base := strings.TrimSuffix(dpFile, ".dataplane.yaml")
		dp0, err := readDataplane(dpFile)
		if err != nil {
			t.Fatal(err)
		}
		objects, err := readPolicies(base + ".policies.yaml")
		if err != nil {
			t.Fatal(err)
		}
		goldens, _ := filepath.Glob(filepath.Join(base, "*.golden.yaml"))
		for _, g := range goldens {
			vname := strings.TrimSuffix(filepath.Base(g), ".golden.yaml")
			name := folder + "/" + filepath.Base(base) + "/" + vname
			v, ok := variants[vname]
			if !ok {
				t.Errorf("%s: no variant %q in the test's table", name, vname)
				continue
			}
			total++
			dp := dp0
			dp.Labels = metaLabels(v.dp, dp.Mesh, withDisplayName(dp0.Labels, dp0.Name))
			dp.Namespace = dp.Labels[api.LabelNamespace]
			objs := make([]Policy, len(objects))
			for i, o := range objects {
				objs[i] = o
				if o.Type == api.KindMesh {
					continue
				}
				objs[i].Labels = metaLabels(v.policy, o.Mesh, withDisplayName(o.Labels, o.Name))
				if v.role != "" {
					objs[i].Labels[api.LabelPolicyRole] = v.role
				}
				if v.role == "system" {
					objs[i].Labels[api.LabelNamespace] = "kuma-system"
				}
			}
			m, err := e.MatchedPolicies(policyType(objs), dp, objs)
			var got any
			if err != nil {
				got = err.Error()
			} else {
				names := []string{}
				for _, p := range m.Policies {
					names = append(names, p.DisplayName())
				}
				got = names
			}
			want := []string{}
			items, _ := readGolden(t, g)["items"].([]any)
			for _, it := range items {
				im, _ := it.(map[string]any)
				labels, _ := im["labels"].(map[string]any)
				n := fmt.Sprint(im["name"])
				if d, ok := labels[labelDisplayName]; ok {
					n = fmt.Sprint(d)
				}
				want = append(want, n)
			}
			if agrees(t, name, got, want, allowed) {
				agree++
			}
		}
	}
	t.Logf("%s: %d/%d cases agree with Kuma 2.14.3", folder, agree, total)
}

func withDisplayName(own map[string]string, name string) map[string]string {
	l := map[string]string{labelDisplayName: name}
	for k, v := range own {
		if k != api.LabelMesh {
			l[k] = v
		}
	}
	return l
}
