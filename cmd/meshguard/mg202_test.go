package main

import (
	"strings"
	"testing"
)

// TestLintDenyAllBaseline: the project's own deny-by-default example
// (examples/check/kuma: a mesh-wide deny that namespace and workload policies
// open) has no MG202, and a lint of the mesh-wide deny alone, which cannot see
// the policies that may open it, says "unless policies outside this set open
// them" instead of stating the deny as a fact.
func TestLintDenyAllBaseline(t *testing.T) {
	out, errOut, _ := cli(t, "", "lint", kumaCheckDir)
	if strings.Contains(out, "MG202") {
		t.Errorf("the deny-by-default example gets MG202:\n%s%s", out, errOut)
	}
	alone := `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: deny-all, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from:
    - targetRef: {kind: Mesh}
      default: {action: Deny}
`
	out, errOut, _ = cli(t, alone, "lint", "-")
	if !strings.Contains(out, "MG202") || !strings.Contains(out, "deny every client, unless policies outside this set open them") {
		t.Errorf("a lone mesh-wide deny: want a conditional MG202\n%s%s", out, errOut)
	}
}
