package kumainspect

import (
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
)

// TestDecodeBoundsAliasExpansion: a few lines of aliases that would expand to a
// billion values are refused, not expanded.
func TestDecodeBoundsAliasExpansion(t *testing.T) {
	in := `type: MeshTrace
name: bomb
mesh: default
a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]
`
	_, err := Decode(strings.NewReader(in), "bomb.yaml", api.DefaultRegistry())
	if err == nil || !strings.Contains(err.Error(), "aliases") || !strings.Contains(err.Error(), "bomb.yaml") {
		t.Fatalf("err = %v, want the file named and the alias bound", err)
	}
}

// TestDecodeSplitsAsKumactl: documents split at --- lines, a Universal one
// trimmed (its final block scalar loses the newline), a manifest not; a stream of
// only comments and a document that is neither format are skipped.
func TestDecodeSplitsAsKumactl(t *testing.T) {
	in := "# a comment\n---\ntype: MeshProxyPatch\nname: p\nmesh: default\nspec:\n  default:\n    appendModifications:\n      - cluster:\n          operation: Add\n          value: |\n            name: c\n---\n" +
		"apiVersion: kuma.io/v1alpha1\nkind: MeshProxyPatch\nmetadata: {name: k, namespace: kuma-system}\nspec:\n  default:\n    appendModifications:\n      - cluster:\n          operation: Add\n          value: |\n            name: c\n---\nfoo: bar\n"
	objs, err := Decode(strings.NewReader(in), "in.yaml", api.DefaultRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 || !objs[0].Universal || objs[1].Universal {
		t.Fatalf("decoded %d objects (%v), want one Universal, one manifest", len(objs), objs)
	}
	value := func(o Object) any {
		mods := o.Object["spec"].(map[string]any)["default"].(map[string]any)["appendModifications"].([]any)
		return mods[0].(map[string]any)["cluster"].(map[string]any)["value"]
	}
	if v := value(objs[0]); v != "name: c" {
		t.Errorf("Universal block scalar = %q, want it trimmed as kumactl trims it", v)
	}
	if v := value(objs[1]); v != "name: c\n" {
		t.Errorf("manifest block scalar = %q, want its final newline kept", v)
	}
}

// TestDecodeReadsKubectlLists: the items of a List (kubectl get -o yaml) are objects.
func TestDecodeReadsKubectlLists(t *testing.T) {
	in := "apiVersion: v1\nkind: List\nitems:\n- apiVersion: kuma.io/v1alpha1\n  kind: MeshTimeout\n  metadata: {name: a, namespace: kuma-system}\n- apiVersion: kuma.io/v1alpha1\n  kind: MeshRetry\n  metadata: {name: b, namespace: kuma-system}\n"
	objs, err := Decode(strings.NewReader(in), "list.yaml", api.DefaultRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 || objs[0].GetKind() != "MeshTimeout" || objs[1].GetName() != "b" {
		t.Fatalf("decoded %v, want the List's two items", objs)
	}
}
