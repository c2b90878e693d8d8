package lint

import (
	"os"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/rules"
)

// TestReferenceStageInventory: a reference resolves against the run's objects and
// the inventory, in any order; without the inventory the namespace is unknown and
// nothing is reported; a nil inventory turns the stage off.
func TestReferenceStageInventory(t *testing.T) {
	s := api.DefaultSettings()
	policy := []byte(`apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: t, namespace: shop}
spec:
  to:
    - targetRef: {kind: MeshService, name: backnd}
      default: {idleTimeout: 1h}
    - targetRef: {kind: MeshService, name: backend}
      default: {idleTimeout: 1h}
`)
	svc := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"name": "backend", "namespace": "shop"}}}
	codes := func(inv *Inventory, docs []byte) []string {
		o := Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry(), Stages: CrossDocumentInventory(s, "default", inv)}
		fs, _ := Lint(LoadBytes("p.yaml", docs), o)
		var out []string
		for _, f := range fs {
			if rules.Number(f.Code)/100 == 4 {
				out = append(out, f.Code+" "+f.Field)
			}
		}
		return out
	}
	want := []string{"MG401 spec.to[0].targetRef"}
	if got := codes(InventoryOf([]*unstructured.Unstructured{svc}, "default"), policy); !slices.Equal(got, want) {
		t.Errorf("with the Service in the inventory: %v, want %v", got, want)
	}
	inRun := append(slices.Clone(policy), []byte("---\napiVersion: v1\nkind: Service\nmetadata: {name: backend, namespace: shop}\n")...)
	if got := codes(&Inventory{}, inRun); !slices.Equal(got, want) {
		t.Errorf("with the Service after the policy in the run: %v, want %v", got, want)
	}
	if got := codes(&Inventory{}, policy); len(got) != 0 {
		t.Errorf("unknown namespace reported: %v", got)
	}
	if got := codes(nil, inRun); len(got) != 0 {
		t.Errorf("--no-inventory still reports: %v", got)
	}
}

// TestStrictReferences: with --strict-references (a complete inventory) a reference
// into a kind or namespace the set holds nothing of is judged too, and reported as
// an error; without it the same lint stays quiet (the default is unchanged).
func TestStrictReferences(t *testing.T) {
	s := api.DefaultSettings()
	policy := []byte(`apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: t, namespace: shop}
spec:
  to:
    - targetRef: {kind: MeshService, name: backend}
      default: {idleTimeout: 1h}
`)
	findings := func(inv *Inventory) []string {
		o := Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry(), Stages: CrossDocumentInventory(s, "default", inv)}
		fs, _ := Lint(LoadBytes("p.yaml", policy), o)
		var out []string
		for _, f := range fs {
			out = append(out, f.Severity+" "+f.Code+" "+f.Field)
		}
		return out
	}
	if got := findings(&Inventory{}); len(got) != 0 {
		t.Errorf("default: %v, want nothing", got)
	}
	want := []string{"error MG401 spec.to[0].targetRef"}
	if got := findings(&Inventory{Complete: true}); !slices.Equal(got, want) {
		t.Errorf("strict: %v, want %v", got, want)
	}
}

// TestReferenceGrantsAcrossFiles: under Kuma 3.0 (--kuma-version 3.0-preview) an
// HTTPRoute's backend in another namespace without a ReferenceGrant there is MG406
// across the run's files (rules/examples/MG406: the bad file warns, the good one,
// with the grant, does not); never under 2.14; and not in a cluster's objects read
// without their ReferenceGrants (meshguard audit, Inventory.Cluster), where the
// absence of a grant says nothing.
func TestReferenceGrantsAcrossFiles(t *testing.T) {
	bad, err := os.ReadFile("../rules/examples/MG406/bad.yaml")
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile("../rules/examples/MG406/good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	codes := func(version string, inv *Inventory, docs []byte) []string {
		s := api.DefaultSettings()
		s.KumaVersion = version
		o := Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry(), Stages: CrossDocumentInventory(s, "default", inv)}
		fs, _ := Lint(LoadBytes("p.yaml", docs), o)
		var out []string
		for _, f := range fs {
			if f.Code == "MG406" {
				out = append(out, f.Severity+" "+f.Field)
			}
		}
		return out
	}
	if got, want := codes("3.0-preview", &Inventory{}, bad), []string{"warning spec.rules[0].backendRefs[0]"}; !slices.Equal(got, want) {
		t.Errorf("3.0-preview, bad: %v, want %v", got, want)
	}
	for _, c := range []struct {
		name, version string
		inv           *Inventory
		docs          []byte
	}{
		{"3.0-preview, good", "3.0-preview", &Inventory{}, good},
		{"2.14, bad", "2.14", &Inventory{}, bad},
		{"3.0-preview, a cluster read without grants", "3.0-preview", &Inventory{Cluster: true}, bad},
	} {
		if got := codes(c.version, c.inv, c.docs); len(got) != 0 {
			t.Errorf("%s: %v, want no MG406", c.name, got)
		}
	}
}
