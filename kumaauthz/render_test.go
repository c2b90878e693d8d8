package kumaauthz

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestMarshalJSONCompact checks that the compact document is the indented one with
// the indentation removed, byte for byte.
func TestMarshalJSONCompact(t *testing.T) {
	pvs, err := BuildPreviews(policiesFromYAML(t, seed000YAML), Options{Form: FormExpanded})
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string][]Preview{"seed000": pvs, "empty": nil} {
		indented, err := MarshalJSON(in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := MarshalJSONCompact(in)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := json.Compact(&want, indented); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: compact JSON differs from the compacted indented JSON\ngot  %s\nwant %s", name, got, want.Bytes())
		}
		if name == "seed000" && len(got) >= len(indented) {
			t.Errorf("compact JSON is not smaller: %d >= %d bytes", len(got), len(indented))
		}
	}
}

// TestMarshalJSONCompactString checks that the string form is MarshalJSONCompact's
// bytes, HTML escaping included (in the document and in protojson's output).
func TestMarshalJSONCompactString(t *testing.T) {
	pvs, err := BuildPreviews(policiesFromYAML(t, seed000YAML), Options{Form: FormExpanded})
	if err != nil {
		t.Fatal(err)
	}
	odd, err := BuildPreviews(policiesFromYAML(t, `kind: MeshTrafficPermission
metadata: {name: odd, namespace: shop}
spec:
  targetRef: {kind: Dataplane, labels: {app: "a<b>&c"}}
  from:
    - {targetRef: {kind: MeshSubset, tags: {kuma.io/service: "x<y>&z", env: "<dev>"}}, default: {action: Allow}}
`), Options{Form: FormExpanded})
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string][]Preview{"seed000": pvs, "empty": nil, "html": odd} {
		want, err := MarshalJSONCompact(in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := MarshalJSONCompactString(in)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s: string form differs\ngot  %s\nwant %s", name, got, want)
		}
		if name == "html" && (!bytes.Contains(want, []byte(`\u003c`)) || bytes.Contains(want, []byte("<"))) {
			t.Errorf("html: want < escaped: %s", want)
		}
	}
}
