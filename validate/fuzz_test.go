package validate

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/defaults"
	"github.com/meshguard/meshguard/rules"
)

// FuzzEngine feeds arbitrary documents, as every registered kind and in every mode,
// through defaults and validate: nothing may panic, defaulting must be idempotent, and
// every finding must carry a code.
func FuzzEngine(f *testing.F) {
	for _, r := range rules.Catalogue() {
		f.Add([]byte(r.Bad), uint8(0))
		f.Add([]byte(r.Good), uint8(1))
	}
	f.Add([]byte(`{"metadata":{"labels":{"kuma.io/mesh":5}},"spec":{"to":[null,{"targetRef":[]}]}}`), uint8(2))
	f.Add([]byte(`spec: {from: [{targetRef: {kind: MeshSubset, tags: {"": ""}}, default: {action: 1}}], rules: [{default: {allow: [{spiffeId: {}}]}}]}`), uint8(3))
	reg := api.DefaultRegistry()
	kinds := reg.Kinds()
	modes := []api.Settings{settings(api.ModeStandalone, ""), settings(api.ModeZone, "z"), settings(api.ModeGlobal, "")}
	f.Fuzz(func(t *testing.T, data []byte, pick uint8) {
		m := map[string]any{}
		if err := yaml.Unmarshal(data, &m); err != nil || m == nil {
			return
		}
		kind := kinds[int(pick)%len(kinds)]
		m["apiVersion"] = kind.Group + "/" + kind.Version
		m["kind"] = kind.Kind
		s := modes[int(pick/16)%len(modes)]
		req := api.Request{Operation: api.OpCreate, Privileged: pick&8 != 0}
		o := &unstructured.Unstructured{Object: m}
		defaults.Apply(o, kind, s, req)
		once, err := json.Marshal(o.Object)
		if err != nil {
			t.Fatalf("defaulted object does not marshal: %v", err)
		}
		defaults.Apply(o, kind, s, req)
		twice, _ := json.Marshal(o.Object)
		if string(once) != string(twice) {
			t.Fatalf("defaulting is not idempotent:\n%s\n%s", once, twice)
		}
		res := Validate(o, kind, s, req)
		for _, e := range append(res.Errors, res.Warnings...) {
			if e.Origin == "" {
				t.Fatalf("finding without a code: %v", e)
			}
		}
		old := o.DeepCopy()
		_ = Validate(o, kind, s, api.Request{Operation: api.OpUpdate, Old: old})
	})
}
