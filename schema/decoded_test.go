package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// roundTrip is what apiServerCopy stands for: the object encoded as JSON and decoded
// the way the API server decodes a request body.
func roundTrip(obj map[string]any) (map[string]any, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("the object cannot be encoded as JSON: %w", err)
	}
	var out map[string]any
	if err := utiljson.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// sameAsRoundTrip fails t unless apiServerCopy(obj) gives exactly what the JSON
// round trip gives: the same values of the same Go types, or the same error.
func sameAsRoundTrip(t *testing.T, name string, obj map[string]any) {
	t.Helper()
	want, wantErr := roundTrip(obj)
	got, gotErr := apiServerCopy(obj)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Errorf("%s: error %v, the round trip says %v", name, gotErr, wantErr)
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: copy\n%#v\nround trip\n%#v", name, got, want)
	}
}

// TestAPIServerCopyIsTheJSONRoundTrip: the direct copy gives the API server's
// decoding of every kind of value a decoder hands the schema layer, including the
// numbers where int64 and float64 part (whole floats up to 2^63, 1e21 where
// encoding/json switches to exponents, -0) and what only the round trip can answer
// (NaN, strings that are not UTF-8, other Go types, nesting past the decoder's limit).
func TestAPIServerCopyIsTheJSONRoundTrip(t *testing.T) {
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 3, 2.5, -2.5, 1e-7, 1e-6, 5e-324,
		1 << 53, 1<<53 + 2, 1<<55 + 8, 1<<55 + 24, -(1<<55 + 24), 1 << 62, 9.223372036854775e18, 1 << 63, -(1 << 63), -(1 << 63) - 4096,
		1e20, 1e21, 1e22, -1e21, math.MaxFloat64, math.SmallestNonzeroFloat64, 0.1, 123456789.125,
		math.NaN(), math.Inf(1), math.Inf(-1)}
	for _, f := range floats {
		sameAsRoundTrip(t, fmt.Sprintf("float %v", f), map[string]any{"spec": map[string]any{"n": f, "l": []any{f}}})
	}
	cases := map[string]map[string]any{
		"nil object":        nil,
		"empty object":      {},
		"scalars":           {"s": "x", "b": true, "n": nil, "i": int64(-7), "j": int(42), "max": int64(math.MaxInt64)},
		"nil map and slice": {"m": map[string]any(nil), "l": []any(nil), "e": []any{}, "o": map[string]any{}},
		"escapes":           {"s": "<a&b>\u2028\u2029\"\\\t", "k<&>": "v"},
		"bad UTF-8 value":   {"s": "a\xffb\xfe"},
		"bad UTF-8 keys":    {"a\xff": int64(1), "a\xfe": int64(2)},
		"other types":       {"i32": int32(5), "u": uint64(math.MaxUint64), "f32": float32(1.5), "num": json.Number("12"), "ss": []string{"a"}},
		"struct":            {"x": struct{ A int }{A: 1}},
		"deep":              deep(1200, false),
		"deep list":         deep(1200, true),
		"too deep":          deep(10001, false),
	}
	for name, obj := range cases {
		sameAsRoundTrip(t, name, obj)
	}
	rng := rand.New(rand.NewPCG(15, 15))
	for i := range 500 {
		sameAsRoundTrip(t, fmt.Sprintf("random %d", i), randomObject(rng, 4))
	}
}

// deep nests a value n levels deep, in maps or in lists.
func deep(n int, lists bool) map[string]any {
	var v any = "leaf"
	for range n {
		if lists {
			v = []any{v}
		} else {
			v = map[string]any{"a": v}
		}
	}
	return map[string]any{"spec": v}
}

// randomObject builds a JSON-like object with the values YAML decoders give.
func randomObject(rng *rand.Rand, depth int) map[string]any {
	out := map[string]any{}
	for i := range rng.IntN(5) {
		out[fmt.Sprintf("k%d", i)] = randomValue(rng, depth-1)
	}
	return out
}

func randomValue(rng *rand.Rand, depth int) any {
	switch n := rng.IntN(9); {
	case n == 0 && depth > 0:
		return randomObject(rng, depth)
	case n == 1 && depth > 0:
		l := make([]any, rng.IntN(4))
		for i := range l {
			l[i] = randomValue(rng, depth-1)
		}
		return l
	case n == 2:
		return float64(rng.IntN(1000)) - 500
	case n == 3:
		return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(50)-25))
	case n == 4:
		return rng.Int64() - rng.Int64()
	case n == 5:
		return strings.Repeat("é", rng.IntN(3))
	case n == 6:
		return rng.IntN(2) == 0
	case n == 7:
		return math.Ldexp(float64(rng.Int64N(1<<53)), rng.IntN(20)+50) // whole floats near 2^63
	}
	return nil
}
