package fastjson

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// reference is what the handler did before DecodeObject: encoding/json into a map.
func reference(data []byte) (map[string]any, error) {
	m := map[string]any{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// seeds are documents worth holding the decoder to: the repository's examples
// (as JSON), every escape and number form, and malformed input.
func seeds(t testing.TB) [][]byte {
	out := [][]byte{
		[]byte(`{}`), []byte(` {"a" : [ 1 , -2.5e3 , 0 , 1E+2, 1e-2 , true , false , null , "x" , {} , [] ] } `),
		[]byte(`null`), []byte(` null `), []byte(`[]`), []byte(`"s"`), []byte(`1`), []byte(`true`),
		[]byte(`{"a":"\u00e9\ud83d\ude00\ud800\udc00\ud800x\udc00\"\\\/\b\f\n\r\t"}`),
		[]byte(`{"a":"\ud800\ud800","b":"\udfff","c":"\u0000"}`),
		[]byte("{\"a\":\"\xff\xfe ok \xc3\xa9 \xe2\x82\"}"), []byte("{\"\xff\":1}"),
		[]byte(`{"a":1,"a":{"b":2},"a":[3]}`), []byte(`{"n":1e999}`), []byte(`{"n":-1e999,"x":}`),
		[]byte(`{"n":1e-999}`), []byte(`{"n":01}`), []byte(`{"n":1.}`), []byte(`{"n":-}`), []byte(`{"n":1e}`),
		[]byte(`{"a":tru}`), []byte(`{"a":nul}`), []byte(`{"a" 1}`), []byte(`{"a":1,}`), []byte(`{"a":1 "b":2}`),
		[]byte(`{"a":[1,]}`), []byte(`{"a":[1 2]}`), []byte(`{"a":"x`), []byte(`{"a":"\x"}`), []byte(`{"a":"\u12"}`),
		[]byte("{\"a\":\"\t\"}"), []byte(`{"a":1}x`), []byte(`{"a":1}}`), []byte("\xef\xbb\xbf{}"), []byte(``), []byte(`   `),
		[]byte(`{"metadata":{"uid":"u","name":"n","managedFields":[{"time":"t"}],"uid":"v"},"metadata":{"uid":1}}`),
		[]byte(`{"metadata":"x","spec":{"metadata":{"uid":"inner"}}}`),
		[]byte(`{"metadata":{"u\u0069d":"escaped","generation":1e999}}`),
		[]byte(strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)),
		[]byte(`{"a":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `}`),
		[]byte(`{"a":` + strings.Repeat(`{"a":`, MaxDepth-1) + "1" + strings.Repeat("}", MaxDepth)),
	}
	files, _ := filepath.Glob("../../examples/admission/*.json")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
		var ar struct {
			Request struct{ Object json.RawMessage }
		}
		if err := json.Unmarshal(b, &ar); err == nil && len(ar.Request.Object) > 0 {
			out = append(out, ar.Request.Object)
		}
	}
	return out
}

func checkDecode(t *testing.T, data []byte) {
	want, werr := reference(data)
	got, gerr := DecodeObject(data)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("DecodeObject(%q): error %v, encoding/json: %v", data, gerr, werr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("DecodeObject(%q)\n got %#v\nwant %#v", data, got, want)
	}
}

func TestDecodeObjectMatchesEncodingJSON(t *testing.T) {
	for _, s := range seeds(t) {
		checkDecode(t, s)
	}
}

func TestDecodeObjectErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":1,}`, `invalid character '}' looking for beginning of object key string`},
		{`{"a":1}x`, `invalid character 'x' after top-level value`},
		{`{"a":"x`, `unexpected end of JSON input`},
		{`[1]`, `cannot unmarshal`},
		{`{"n":1e999}`, `cannot unmarshal number 1e999`},
	} {
		_, err := DecodeObject([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodeObject(%s) = %v, want an error containing %q", tc.in, err, tc.want)
		}
	}
}

func FuzzDecodeObject(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecode(t, data)
		checkSplit(t, data)
	})
}

// benchObject is an admission request's object as the API server sends it: compact
// JSON (the example files are indented for reading).
func benchObject(b *testing.B) []byte {
	data := seeds(b)
	var buf bytes.Buffer
	if err := json.Compact(&buf, data[len(data)-1]); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

func BenchmarkDecodeObject(b *testing.B) {
	obj := benchObject(b) // an admission request's object
	for _, bc := range []struct {
		name string
		fn   func([]byte) (map[string]any, error)
	}{{"fastjson", DecodeObject}, {"encoding-json", reference}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(obj)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.fn(obj); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzAppendString holds AppendString to encoding/json's encoding of the same
// string, byte for byte.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", `"\<>&`, "\x00\x1f\x7f", "é\u2028\u2029🙂", "\xff\xe2\x80", "a\tb\nc\rd\be\f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("AppendString(%q) = %s, encoding/json %s", s, got[1:], want)
		}
	})
}

// BenchmarkAppendString writes a JSON document as a JSON string, as the
// AdmissionReview answer carries the rbac-preview annotation: a quote to escape
// every few bytes.
func BenchmarkAppendString(b *testing.B) {
	doc := strings.Repeat(`{"name":"kuma-demo/allow-web","principals":[{"authenticated":{"principal_name":{"exact":"spiffe://default/web"}}}],"note":"a <b> & c"},`, 50)
	b.SetBytes(int64(len(doc)))
	var buf []byte
	for b.Loop() {
		buf = AppendString(buf[:0], doc)
	}
}

func BenchmarkAppendStringPlain(b *testing.B) {
	doc := strings.Repeat(`abcdefghijklmnopqrstuvwxyz0123456789 kuma.io/service: web `, 100)
	b.SetBytes(int64(len(doc)))
	var buf []byte
	for b.Loop() {
		buf = AppendString(buf[:0], doc)
	}
}

// TestCursorRawIsCapped: a raw value shares the document's memory, so appending
// to it must not write over the bytes that follow it.
func TestCursorRawIsCapped(t *testing.T) {
	doc := []byte(`{"a":{"x":1},"b":2}`)
	c := NewCursor(doc)
	var raw []byte
	ok := c.Object(func(key []byte) bool {
		if string(key) == "a" {
			var ok bool
			raw, ok = c.Raw()
			return ok
		}
		_, ok := c.Raw()
		return ok
	}) && c.End()
	if !ok || string(raw) != `{"x":1}` {
		t.Fatalf("Object/Raw = %v, %q", ok, raw)
	}
	_ = append(raw, "XXXX"...)
	if string(doc) != `{"a":{"x":1},"b":2}` {
		t.Fatalf("appending to a raw value changed the document: %s", doc)
	}
}
