package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"sort"
	"testing"

	sigsjson "sigs.k8s.io/json"
)

// TestAppendJSONIsMarshal: the JSON Decode decodes is byte for byte what
// json.Marshal writes for the values decoders produce (and for the others it
// hands to json.Marshal), so typed specs come out as they did.
func TestAppendJSONIsMarshal(t *testing.T) {
	values := []any{
		nil, true, false, "", "plain", `quote " backslash \ slash /`,
		"ctl \x00\x01\b\f\n\r\t\x1f\x7f", "<html> & </html>", "line\u2028para\u2029",
		"bad \xff\xfe utf8 \xe2\x82", "ünïcödé ✓ 😀",
		0.0, math.Copysign(0, -1), 1.0, -1.0, 0.1, 1e-6, 9.99e-7, 1e-7, 1.5e-10, 1e20, 1e21, 1.23e21, -1e21,
		123456789.0, float64(math.MaxInt64), math.MaxFloat64, math.SmallestNonzeroFloat64,
		int64(0), int64(-42), int64(math.MaxInt64), 7, json.Number("12.5"),
		map[string]any(nil), []any(nil), map[string]any{}, []any{},
		map[string]string{"b": "x", "a": "y"}, []string{"a"}, int32(5), uint64(math.MaxUint64),
		map[string]any{
			"z": 1.0, "a": []any{map[string]any{"k": "v", "b": nil}, "s", 2.5, false},
			"m":    map[string]any{"é": "x", "E": "y", "<": ">", "": "empty key"},
			"deep": map[string]any{"x": map[string]any{"y": map[string]any{"z": []any{[]any{1e30}}}}},
		},
	}
	for i, v := range values {
		want, werr := json.Marshal(v)
		got, gerr := appendJSON(nil, v, new(keyStack))
		if (werr != nil) != (gerr != nil) || !bytes.Equal(got, want) {
			t.Errorf("%d %#v:\n got %s (%v)\nwant %s (%v)", i, v, got, gerr, want, werr)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, werr := json.Marshal(map[string]any{"f": f})
		_, gerr := appendJSON(nil, map[string]any{"f": f}, new(keyStack))
		if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
			t.Errorf("%v: error %v, json.Marshal's %v", f, gerr, werr)
		}
	}
}

// largeFromSpec is a MeshTrafficPermission spec with n `from` items, as a JSON
// decoder gives it.
func largeFromSpec(n int) map[string]any {
	from := make([]any, n)
	for i := range from {
		from[i] = map[string]any{
			"targetRef": map[string]any{"kind": "MeshSubset", "tags": map[string]any{"kuma.io/service": fmt.Sprintf("svc-%d_ns_svc_80", i)}},
			"default":   map[string]any{"action": "Allow"},
		}
	}
	return map[string]any{"targetRef": map[string]any{"kind": "Mesh"}, "from": from}
}

// TestDecodeAllocatesLessThanMarshal: Decode gives the typed spec json.Marshal
// and Unmarshal give, allocating at most 70% of their bytes (issue 27: the
// typed spec of a 2.9 MB policy cost ~40 MB through json.Marshal, ~30 MB of it
// the encoding).
func TestDecodeAllocatesLessThanMarshal(t *testing.T) {
	spec := largeFromSpec(2000)
	viaMarshal := func() (*MeshTrafficPermissionSpec, error) {
		data, err := json.Marshal(spec)
		if err != nil {
			return nil, err
		}
		out := &MeshTrafficPermissionSpec{}
		return out, sigsjson.UnmarshalCaseSensitivePreserveInts(data, out)
	}
	viaDecode := func() (*MeshTrafficPermissionSpec, error) {
		out := &MeshTrafficPermissionSpec{}
		return out, Decode(spec, out)
	}
	want, err := viaMarshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := viaDecode()
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(want)
	if !bytes.Equal(a, b) {
		t.Fatalf("Decode gives another spec than json.Marshal and Unmarshal")
	}
	allocated := func(f func() (*MeshTrafficPermissionSpec, error)) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 3 {
			if _, err := f(); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	old, now := allocated(viaMarshal), allocated(viaDecode)
	t.Logf("bytes allocated for 3 decodes of 2,000 items: %d through json.Marshal, %d through Decode", old, now)
	if float64(now) > 0.7*float64(old) {
		t.Errorf("Decode allocated %d bytes, json.Marshal and Unmarshal %d: want at most 70%%", now, old)
	}
}

// TestDecodeStrictIsDecodeWithUnknownFields: one strict decoding stores what Decode
// stores and names the fields the type does not have, nested ones by dotted path.
func TestDecodeStrictIsDecodeWithUnknownFields(t *testing.T) {
	type inner struct {
		Port int64 `json:"port"`
	}
	type spec struct {
		Name   string  `json:"name"`
		Inner  inner   `json:"inner"`
		Inners []inner `json:"inners"`
	}
	in := map[string]any{"name": "a", "nmae": "typo", "inner": map[string]any{"port": int64(8080), "prot": "x"},
		"inners": []any{map[string]any{"port": int64(1)}, map[string]any{"pórt": int64(2)}}}
	var strict, plain spec
	unknown, err := DecodeStrict(in, &strict)
	if err != nil {
		t.Fatal(err)
	}
	if err := Decode(in, &plain); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(strict, plain) {
		t.Errorf("DecodeStrict stored %+v, Decode %+v", strict, plain)
	}
	sort.Strings(unknown)
	if want := []string{"inner.prot", "inners[1].pórt", "nmae"}; !reflect.DeepEqual(unknown, want) {
		t.Errorf("unknown %q, want %q", unknown, want)
	}
	if _, err := DecodeStrict(map[string]any{"name": int64(3)}, &strict); err == nil {
		t.Error("a number decoded into a string field")
	}
}
