//go:build e2e

package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestJSONPatchNullValueThroughAPIServer shows, with Kuma's CRD installed in a real
// API server, why lint reads a JSON patch `value: null` as no value on Kubernetes
// (validate.jsonPatchValueSet): the API server drops the null before any webhook
// sees the object, so a remove with `value: null` is stored without a value and an
// add with `value: null` is refused by meshguard for having none.
func TestJSONPatchNullValueThroughAPIServer(t *testing.T) {
	local(t)
	if err := ensureNS("kuma-system"); err != nil {
		t.Fatal(err)
	}
	doc := func(op string) string {
		return `apiVersion: kuma.io/v1alpha1
kind: MeshProxyPatch
metadata: {name: e2e-null-` + op + `, namespace: kuma-system, labels: {kuma.io/mesh: default}}
spec:
  targetRef: {kind: Mesh}
  default:
    appendModifications:
    - cluster: {operation: Patch, match: {name: c}, jsonPatches: [{op: ` + op + `, path: /a, value: null}]}
`
	}
	out, stderr, err := kubectl(t, doc("remove"), "apply", "--dry-run=server", "-o", "json", "-f", "-")
	if err != nil {
		t.Fatalf("remove with value: null refused: %v\n%s", err, stderr)
	}
	var stored struct {
		Spec struct {
			Default struct {
				AppendModifications []struct {
					Cluster struct {
						JSONPatches []map[string]any `json:"jsonPatches"`
					} `json:"cluster"`
				} `json:"appendModifications"`
			} `json:"default"`
		} `json:"spec"`
	}
	if err := json.Unmarshal([]byte(out), &stored); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	patch := stored.Spec.Default.AppendModifications[0].Cluster.JSONPatches[0]
	if _, ok := patch["value"]; ok {
		t.Errorf("the API server kept value: null: %v", patch)
	}
	_, stderr, err = kubectl(t, doc("add"), "apply", "--dry-run=server", "-f", "-")
	want := "spec.default.appendModifications[0].cluster.jsonPatches[0].value"
	if err == nil || !strings.Contains(stderr, want) || !strings.Contains(stderr, "[MG153]") {
		t.Errorf("add with value: null: want a denial [MG153] at %s, got err %v\n%s", want, err, stderr)
	}
}
