package lint

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

// TestJSONPatchNullValue holds what each Kuma door does with a JSON patch
// `value: null`. On Kubernetes the API server drops the null (the CRD's `value` is
// not nullable) before Kuma's webhook decodes the policy, so an add has no value
// and is refused, and a remove has none and is accepted. Kuma's Universal REST
// decoding keeps the null and its validator counts it as a value: the add is
// accepted and the remove refused. Lint, with the CRDs loaded, must answer as the
// door the document is written for.
func TestJSONPatchNullValue(t *testing.T) {
	const patches = "[{op: add, path: /a, value: null}, {op: remove, path: /b, value: null}]"
	const at = "spec.default.appendModifications[0].cluster.jsonPatches"
	cases := []struct {
		name, doc string
		want      []string
	}{
		{"kubernetes", `apiVersion: kuma.io/v1alpha1
kind: MeshProxyPatch
metadata: {name: p, namespace: kuma-system, labels: {kuma.io/mesh: default}}
spec:
  targetRef: {kind: Mesh}
  default:
    appendModifications:
    - cluster: {operation: Patch, jsonPatches: ` + patches + `}
`, []string{at + "[0].value"}},
		{"universal", `type: MeshProxyPatch
name: p
mesh: default
spec:
  targetRef: {kind: Mesh}
  default:
    appendModifications:
    - cluster: {operation: Patch, jsonPatches: ` + patches + `}
`, []string{at + "[1].value"}},
	}
	s := api.DefaultSettings()
	if err := schema.LoadInto(&s); err != nil {
		t.Fatal(err)
	}
	o := Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry()}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs, _ := Lint(LoadBytes(tc.name+".yaml", []byte(tc.doc)), o)
			var got []string
			for _, f := range fs {
				if f.Severity == "error" {
					got = append(got, f.Field)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s\nfindings: %+v", diff, fs)
			}
		})
	}
}
