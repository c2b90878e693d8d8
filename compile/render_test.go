package compile

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
