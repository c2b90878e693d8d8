package lint

import (
	"encoding/json"
	"testing"

	"github.com/meshguard/meshguard/rules"
)

// TestFindingRule: a lint finding converts to rules.Finding and back without
// losing what names the object and the problem, and the two share the JSON
// names of those fields (the -o json contract is lint's superset of the rules
// type).
func TestFindingRule(t *testing.T) {
	f := Finding{File: "p.yaml", Line: 4, APIVersion: "kuma.io/v1alpha1", Kind: "MeshTimeout", Namespace: "shop", Name: "t",
		Severity: rules.SeverityWarning, Code: "MG401", Field: "spec.to[0].targetRef", Message: "not found"}
	rf := f.Rule()
	if back := FromRule(rf, f.File, f.Line); back != f {
		t.Errorf("round trip: %+v, want %+v", back, f)
	}
	var whole, part map[string]any
	b, _ := json.Marshal(f)
	_ = json.Unmarshal(b, &whole)
	b, _ = json.Marshal(rf)
	_ = json.Unmarshal(b, &part)
	for k, v := range part {
		if whole[k] != v {
			t.Errorf("rules.Finding's %q is %v, lint's is %v", k, v, whole[k])
		}
	}
	if len(part) != 8 {
		t.Errorf("rules.Finding JSON has %d fields, want 8: %v", len(part), part)
	}
	if got := FromRule(rules.Finding{Code: "MG000"}, "x.yaml", 0); got.Line != 1 {
		t.Errorf("line %d, want 1 (editors count from 1)", got.Line)
	}
}
