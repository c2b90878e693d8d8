package fastjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

var volatile = []string{"uid", "creationTimestamp", "generation", "resourceVersion", "managedFields"}

// checkSplit holds SplitOut to its contract. Its pieces, joined with any valid
// value in each cut, give a document that is valid exactly when the original is,
// and then decodes to the original but for the cut fields of its metadata. Two
// documents with equal pieces give equal joins, so they are both invalid, or both
// valid and equal up to those fields: what a verdict key needs.
func checkSplit(t *testing.T, data []byte) {
	var pieces [][]byte
	ok := SplitOut(data, "metadata", volatile, func(b []byte) { pieces = append(pieces, b) })
	m, err := DecodeObject(data)
	if err == nil && m != nil && !ok {
		t.Fatalf("SplitOut(%q) = false for a valid object", data)
	}
	if !ok {
		return
	}
	joined := bytes.Join(pieces, []byte(`"cut"`))
	got, jerr := DecodeObject(joined)
	if (err != nil) != (jerr != nil) {
		t.Fatalf("SplitOut(%q): pieces joined %q decode with error %v, the original with %v", data, joined, jerr, err)
	}
	if err != nil {
		return
	}
	for _, d := range []map[string]any{m, got} {
		if meta, isMap := d["metadata"].(map[string]any); isMap {
			for _, f := range volatile {
				delete(meta, f)
			}
		}
	}
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("pieces of %q joined decode to\n%#v\nwant\n%#v", data, got, m)
	}
}

func TestSplitOut(t *testing.T) {
	for _, s := range seeds(t) {
		checkSplit(t, s)
	}
	// Two creates of one manifest: equal pieces. Any other difference: unequal.
	split := func(s string) string {
		var out []byte
		if !SplitOut([]byte(s), "metadata", volatile, func(b []byte) { out = append(append(out, b...), '|') }) {
			t.Fatalf("SplitOut(%s) = false", s)
		}
		return string(out)
	}
	a := split(`{"metadata":{"name":"p","uid":"1","creationTimestamp":"2026-01-01T00:00:00Z","managedFields":[{"time":"a"}]},"spec":{}}`)
	b := split(`{"metadata":{"name":"p","uid":"2","creationTimestamp":"2026-11-21T00:00:00Z","managedFields":[{"time":"b"}]},"spec":{}}`)
	c := split(`{"metadata":{"name":"q","uid":"2","creationTimestamp":"2026-11-21T00:00:00Z","managedFields":[{"time":"b"}]},"spec":{}}`)
	d := split(`{"metadata":{"name":"p","uid":"1","creationTimestamp":"2026-01-01T00:00:00Z","managedFields":[{"time":"a"}]},"spec":{"uid":"1"}}`)
	if a != b {
		t.Errorf("creates differing only in server-set fields split differently:\n%s\n%s", a, b)
	}
	if a == c || a == d {
		t.Errorf("different objects split alike: %s", a)
	}
	for _, bad := range []string{`null`, `[]`, `{"metadata":{"uid":tru}}`, `{"metadata":{"uid":1e999}}`,
		`{"metadata":{"uid":"\x"}}`, `{"metadata":{"managedFields":[{"a":1,}]}}`, `{"a":1}x`, `{"a":"x`, `{"a":[1}`} {
		if SplitOut([]byte(bad), "metadata", volatile, func([]byte) {}) {
			t.Errorf("SplitOut(%s) = true, want false", bad)
		}
	}
}

func BenchmarkSplitOut(b *testing.B) {
	compact := benchObject(b)
	// kubectl apply's annotation: the object again, as an escaped string.
	var obj map[string]any
	if err := json.Unmarshal(compact, &obj); err != nil {
		b.Fatal(err)
	}
	meta := obj["metadata"].(map[string]any)
	meta["annotations"] = map[string]any{"kubectl.kubernetes.io/last-applied-configuration": string(compact)}
	meta["managedFields"] = []any{map[string]any{"manager": "kubectl", "operation": "Apply", "time": "2026-11-21T00:00:00Z",
		"fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:spec": map[string]any{"f:from": map[string]any{}}}}}
	applied, err := json.Marshal(obj)
	if err != nil {
		b.Fatal(err)
	}
	for name, doc := range map[string][]byte{"created": compact, "applied": applied} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				if !SplitOut(doc, "metadata", volatile, func([]byte) {}) {
					b.Fatal("not an object")
				}
			}
		})
	}
}
