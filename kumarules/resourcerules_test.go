package kumarules

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
)

// variantLabels are the labels Kuma's resource-rules test stamps on every object
// but the Mesh for each place a policy is created (it copies the object's own
// labels over them). A synced copy ("zone-k8s-2-global-uni") has the labels of
// where it was created and only a hashed name, which resource rules do not read:
// the engine keys them by labels (KRI), so a synced variant computes as its origin.
func variantLabels(variant string) map[string]string {
	base, _, _ := strings.Cut(variant, "-2-")
	l := map[string]string{}
	switch base {
	case "global-uni":
		l["kuma.io/origin"] = "global"
	case "global-k8s":
		l["kuma.io/origin"], l[api.LabelNamespace] = "global", "ns-k8s"
	case "zone-uni":
		l["kuma.io/origin"], l[labelZone] = "zone", "zone-uni"
	case "zone-k8s":
		l["kuma.io/origin"], l[labelZone], l[api.LabelNamespace] = "zone", "zone-k8s", "ns-k8s"
	}
	return l
}

func TestKumaResourceRulesConformance(t *testing.T) {
	e := New(api.DefaultRegistry())
	const folder = "core-rules-outbound/resourcerules"
	inputs, _ := filepath.Glob(filepath.Join(conformanceDir, folder, "*.input.yaml"))
	if len(inputs) == 0 {
		t.Fatalf("no inputs under %s/%s", conformanceDir, folder)
	}
	agree, total, allowed := 0, 0, notAgreeing(t)
	for _, in := range inputs {
		caseDir := strings.TrimSuffix(in, ".input.yaml")
		objects, err := readPolicies(in)
		if err != nil {
			t.Fatal(err)
		}
		goldens, _ := filepath.Glob(filepath.Join(caseDir, "*.golden.yaml"))
		for _, g := range goldens {
			variant := strings.TrimSuffix(filepath.Base(g), ".golden.yaml")
			name := folder + "/" + filepath.Base(caseDir) + "/" + variant
			total++
			objs := withVariant(objects, variantLabels(variant))
			var policies []Policy
			for _, o := range objs {
				if strings.HasPrefix(o.Name, "matched-for-rules-") {
					policies = append(policies, o)
				}
			}
			var got any
			rules, err := e.BuildResourceRules(policies, objs)
			if err != nil {
				got = err.Error()
			} else {
				got = resourceRulesView(rules)
			}
			want := goldenResourceRules(readGolden(t, g))
			if agrees(t, name, got, want, allowed) {
				agree++
			}
		}
	}
	t.Logf("%s: %d/%d cases agree with Kuma 2.14.3", folder, agree, total)
}

// withVariant copies objects with the variant's labels under their own (the Mesh
// keeps its labels, as in Kuma's test).
func withVariant(objects []Policy, labels map[string]string) []Policy {
	out := make([]Policy, len(objects))
	for i, o := range objects {
		out[i] = o
		if o.Type == api.KindMesh {
			continue
		}
		l := map[string]string{labelDisplayName: o.Name}
		for k, v := range labels {
			l[k] = v
		}
		if l[api.LabelNamespace] != "" {
			l[api.LabelMesh] = o.Mesh
		}
		for k, v := range o.Labels {
			l[k] = v
		}
		out[i].Labels = l
	}
	return out
}

func resourceRulesView(rules map[string]ResourceRule) map[string]any {
	out := map[string]any{}
	for k, r := range rules {
		var os []string
		for _, o := range r.Origins {
			os = append(os, fmt.Sprintf("%s[%d]", o.DisplayName(), o.Index))
		}
		out[k] = map[string]any{"conf": normalize(r.Conf), "origins": os}
	}
	return out
}

func goldenResourceRules(g map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range g {
		m, _ := v.(map[string]any)
		var os []string
		ol, _ := m["Origin"].([]any)
		for _, x := range ol {
			om, _ := x.(map[string]any)
			res, _ := om["Resource"].(map[string]any)
			labels, _ := res["Labels"].(map[string]any)
			name := fmt.Sprint(labels[labelDisplayName])
			if labels[labelDisplayName] == nil {
				name = fmt.Sprint(res["Name"])
			}
			os = append(os, fmt.Sprintf("%s[%v]", name, om["RuleIndex"]))
		}
		out[k] = map[string]any{"conf": normalize(m["Conf"]), "origins": os}
	}
	return out
}
