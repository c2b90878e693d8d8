package defaults

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
)

// TestKuma30Sugar: under --kuma-version 3.0-preview the sugar writes no field the
// release's CRD lacks: no targetRef namespace beside a name (3.0 selects by labels
// only) and no targetRef in `from` items (3.0 removed `from` from MeshTimeout);
// under 2.14 it writes both. The top-level targetRef Mesh is written by both.
func TestKuma30Sugar(t *testing.T) {
	doc := `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: mt, namespace: shop}
spec:
  to: [{targetRef: {kind: MeshService, name: backend}, default: {idleTimeout: 1h}}]
  from: [{default: {idleTimeout: 1h}}]
`
	for _, tc := range []struct {
		version string
		want    [][]string
	}{
		{"2.14", [][]string{{"spec", "targetRef"}, {"spec", "from", "0", "targetRef"}, {"spec", "to", "0", "targetRef", "namespace"}}},
		{"3.0-preview", [][]string{{"spec", "targetRef"}}},
	} {
		s := api.DefaultSettings()
		s.KumaVersion = tc.version
		o := obj(t, doc)
		_, changes := ApplyChanges(o, kindOf(t, o), s, api.Request{Operation: api.OpCreate})
		var got [][]string
		for _, c := range changes {
			if len(c.Path) > 0 && c.Path[0] == "spec" {
				got = append(got, c.Path)
			}
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("Kuma %s: sugar written (-want +got):\n%s", tc.version, d)
		}
	}
}
