package main

import (
	"strings"
	"testing"
)

// TestUnknownFieldReadsWell checks MG001 as `meshguard lint` prints it: the key and
// the field the user meant, without Kubernetes's "Unsupported value: null".
func TestUnknownFieldReadsWell(t *testing.T) {
	in := "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: t\n  namespace: kuma-system\nspec:\n  to:\n    - targetRef:\n        kind: Mesh\n      defualt:\n        idleTimeout: 1h\n"
	out, _, _ := cli(t, in, "lint", "-")
	want := `<stdin>:10: warning MG001 spec.to[0].defualt: unknown field "defualt"; did you mean "default"? The API server drops it`
	if !strings.Contains(out, want+"\n") {
		t.Errorf("lint output lacks\n%s\ngot:\n%s", want, out)
	}
}
