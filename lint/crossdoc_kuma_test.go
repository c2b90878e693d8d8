package lint

import (
	"fmt"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/engine"
	"github.com/meshguard/meshguard/validate"
)

const kumaDataplane = `apiVersion: kuma.io/v1alpha1
kind: Dataplane
mesh: default
metadata: {name: backend-1, namespace: shop, labels: {app: backend}}
spec:
  networking:
    address: 10.0.0.2
    inbound: [{port: 8080, name: http, tags: {kuma.io/service: backend_shop_svc_8080, kuma.io/protocol: http}}]
`

// kumaTimeout is a MeshTimeout of shop whose Dataplane targetRef selects by app.
func kumaTimeout(name, app string) string {
	return fmt.Sprintf(`apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: %s, namespace: shop}
spec:
  targetRef: {kind: Dataplane, labels: {app: %s}}
  rules: [{default: {http: {requestTimeout: 10s}}}]
`, name, app)
}

// TestKumaEffectsGate: the policies that select no proxy draw MG452 wherever
// the run holds Dataplanes, before or after them (within engine.GatedBuffer),
// and from --inventory; past the buffer with no Dataplane yet, the check does not
// run over the group rather than judge against part of it.
func TestKumaEffectsGate(t *testing.T) {
	s := api.DefaultSettings()
	o := Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry(), Stages: CrossDocument(s, "default")}
	inv := InventoryOf(nil, "default")
	inv.Objects = append(inv.Objects, LoadBytes("inv.yaml", []byte(kumaDataplane))[0].Object)
	withInv := o
	withInv.Stages = CrossDocumentInventory(s, "default", inv)
	many := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(kumaTimeout(fmt.Sprintf("t-%d", i), "backend") + "---\n")
		}
		return b.String()
	}
	miss := kumaTimeout("miss", "backend-v2")
	for _, tc := range []struct {
		name string
		doc  string
		o    Options
		want int // MG452 findings
	}{
		{"no Dataplanes", miss, o, 0},
		{"Dataplane after", miss + "---\n" + kumaDataplane, o, 1},
		{"Dataplane before", kumaDataplane + "---\n" + miss, o, 1},
		{"Dataplane in --inventory", miss, withInv, 1},
		{"Dataplane after a buffer's worth", many(engine.GatedBuffer-1) + miss + "---\n" + kumaDataplane, o, 1},
		{"Dataplane after more than the buffer", many(engine.GatedBuffer) + miss + "---\n" + kumaDataplane, o, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, _ := Lint(LoadBytes("x.yaml", []byte(tc.doc)), tc.o)
			got := 0
			for _, f := range fs {
				if f.Code == validate.CodeKumaSelectsNone {
					got++
					if f.Field != "spec.targetRef" || f.Severity != validate.SeverityWarning {
						t.Errorf("finding %+v", f)
					}
				}
			}
			if got != tc.want {
				t.Errorf("%d MG452 findings, want %d", got, tc.want)
			}
		})
	}
}
