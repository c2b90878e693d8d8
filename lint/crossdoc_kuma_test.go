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
// the run holds Dataplanes, before or after them, and from --inventory; with more
// than engine.GatedLimit Kuma objects the check does not run over the group (it
// keeps no more of them) rather than judge against part of it.
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
		{"at the limit", many(engine.GatedLimit-1) + miss + "---\n" + kumaDataplane, o, 1},
		{"past the limit", many(engine.GatedLimit) + miss + "---\n" + kumaDataplane, o, 0},
		{"past the limit, Dataplane first", kumaDataplane + "---\n" + many(engine.GatedLimit) + miss, o, 0},
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

// kumaShop is a meshed namespace with a Deployment of app backend and the
// Service that selects it: Kuma gives the Deployment's pods a Dataplane, which
// a repository's manifests do not hold.
const kumaShop = `apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {kuma.io/sidecar-injection: enabled}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: backend, namespace: shop}
spec:
  selector: {matchLabels: {app: backend}}
  template:
    metadata: {labels: {app: backend}}
    spec: {containers: [{name: backend, image: backend, ports: [{containerPort: 8080}]}]}
---
apiVersion: v1
kind: Service
metadata: {name: backend, namespace: shop}
spec:
  selector: {app: backend}
  ports: [{port: 80, targetPort: 8080, appProtocol: http}]
`

// TestKumaEffectsFromWorkloads: where the run (or --inventory) holds workloads
// and no Dataplanes, the policies are judged against the Dataplanes Kuma would
// write for them (issue 29 point 6: "where the input or inventory holds the
// workloads of that mesh and namespace").
func TestKumaEffectsFromWorkloads(t *testing.T) {
	s := api.DefaultSettings()
	o := Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry(), Stages: CrossDocument(s, "default")}
	inv := InventoryOf(nil, "default")
	for _, d := range LoadBytes("inv.yaml", []byte(kumaShop)) {
		inv.add(d.Object, "default", engine.CrossKinds(engine.CrossChecks()))
	}
	withInv := o
	withInv.Stages = CrossDocumentInventory(s, "default", inv)
	unmeshed := strings.Replace(kumaShop, "kuma.io/sidecar-injection: enabled", "team: shop", 1)
	miss, hit := kumaTimeout("miss", "backend-v2"), kumaTimeout("hit", "backend")
	for _, tc := range []struct {
		name string
		doc  string
		o    Options
		want int // MG452 findings
	}{
		{"workloads after", miss + "---\n" + kumaShop, o, 1},
		{"workloads before", kumaShop + "---\n" + miss, o, 1},
		{"workloads in --inventory", miss, withInv, 1},
		{"policy selects the workload", kumaShop + "---\n" + hit, o, 0},
		{"namespace not meshed: no proxy", unmeshed + "---\n" + miss, o, 0},
		{"one policy, more proxies than admission judges", kumaShop + "---\n" + manyPods(2100) + miss, o, 1},
		{"at the limit of workloads", kumaShop + "---\n" + manyPods(engine.GatedLimit-10) + miss + "---\n" + hit, o, 1},
		{"past the limit of workloads", kumaShop + "---\n" + manyPods(engine.GatedLimit) + miss + "---\n" + hit, o, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, _ := Lint(LoadBytes("x.yaml", []byte(tc.doc)), tc.o)
			got := 0
			for _, f := range fs {
				if f.Code == validate.CodeKumaSelectsNone {
					got++
				}
			}
			if got != tc.want {
				t.Errorf("%d MG452 findings, want %d: %+v", got, tc.want, fs)
			}
		})
	}
}

// manyPods is n Pods of shop: workloads a lint run keeps whole for the Kuma
// effects check alone, so at most engine.GatedLimit of them.
func manyPods(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "apiVersion: v1\nkind: Pod\nmetadata: {name: p-%d, namespace: shop}\nspec: {containers: [{name: c, image: i}]}\n---\n", i)
	}
	return b.String()
}

// TestGatedOverflowKeepsNothing: past engine.GatedLimit, the cross stage's
// summary of a policy only gated checks read is the overflow mark alone; the
// anchor (the lines of every path a finding may name) is not built for it
// first, as it was for each of the 284,000 policies past the bound of a
// 294,000-policy run.
func TestGatedOverflowKeepsNothing(t *testing.T) {
	s := api.DefaultSettings()
	o := Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry()}
	var cross *crossStage
	for _, st := range CrossDocument(s, "default")() {
		if c, ok := st.(*crossStage); ok {
			cross = c
		}
	}
	d := &LoadBytes("p.yaml", []byte(kumaTimeout("t", "backend")))[0]
	kind, _ := Prepare(d, o)
	gate, ok := cross.gated[d.Object.GroupVersionKind().GroupKind()]
	if kind == nil || !ok {
		t.Fatal("MeshTimeout is not a kind only gated checks read")
	}
	for range engine.GatedLimit {
		cross.count(d, gate)
	}
	c := Checked{Doc: d, Object: d.Object, Kind: kind}
	if sum, _ := cross.Summarize(c).(*crossSummary); sum == nil || sum.overflow != gate || sum.gated != nil || sum.subject != nil {
		t.Fatalf("past the limit: summary %+v, want the overflow mark alone", sum)
	}
	// The counter's key (the gate's name and the group's), the GroupKind and
	// the mark: 5; with the anchor built first it was 17.
	if n := testing.AllocsPerRun(50, func() { cross.Summarize(c) }); n > 6 {
		t.Errorf("Summarize past the limit allocated %v times, want at most 6 (no anchor)", n)
	}
}
