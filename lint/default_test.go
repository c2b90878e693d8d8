package lint

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
)

// TestDefault: the object is defaulted in place, a replaced label is a warning and a
// denied object names its codes once each, in code order, at the first finding.
func TestDefault(t *testing.T) {
	const src = `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata:
  name: p
  namespace: kuma-system
  labels: {kuma.io/policy-role: consumer}
spec:
  targetRef: {kind: Mesh}
  from:
    - {targetRef: {kind: Mesh}, default: {action: Maybe}}
    - {targetRef: {kind: Mesh}, default: {action: Never}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
`
	docs := LoadBytes("in.yaml", []byte(src))
	o := Options{Settings: api.DefaultSettings(), Namespace: "apps", Registry: api.DefaultRegistry()}

	r := Default(&docs[0], o)
	if got := docs[0].Object.GetLabels()[api.LabelPolicyRole]; got != string(api.RoleSystem) {
		t.Errorf("policy role label = %q, want %q", got, api.RoleSystem)
	}
	if len(r.Replaced) != 1 || r.Replaced[0].Severity != "warning" {
		t.Errorf("replaced = %+v, want one warning", r.Replaced)
	}
	if diff := cmp.Diff([]string{"MG120"}, r.Denied); diff != "" {
		t.Errorf("denied codes: %s", diff)
	}
	if r.DeniedAt.File != "in.yaml" || r.DeniedAt.Line != 10 {
		t.Errorf("denied at %s:%d, want in.yaml:10", r.DeniedAt.File, r.DeniedAt.Line)
	}

	if r := Default(&docs[1], o); len(r.Replaced) != 0 || len(r.Denied) != 0 {
		t.Errorf("ConfigMap: %+v, want nothing", r)
	}
}
