package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// maxCopyDepth is how deep copyAsDecoded follows an object before it hands the
// object to the JSON round trip instead: the API server's decoder refuses objects
// nested deeper than 10,000 levels, and only the round trip says so the same way.
const maxCopyDepth = 1000

// apiServerCopy returns obj as the API server would hold it after decoding the
// object it receives as JSON (k8s.io/apimachinery/pkg/util/json): a deep copy in
// which whole numbers are int64 and the others float64. Pruning and defaulting
// change the copy, never obj.
//
// The values a YAML or JSON decoder gives (maps, slices, strings, bools, int64,
// float64, nil) are copied directly; anything else (a NaN, a string that is not
// UTF-8, another Go type, a very deep object) goes through json.Marshal and
// utiljson.Unmarshal, which is what the copy stands for.
func apiServerCopy(obj map[string]any) (map[string]any, error) {
	if out, ok := copyMap(obj, 0); ok {
		return out, nil
	}
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

// copyMap copies m as a JSON round trip would; ok is false when the round trip
// itself must decide.
func copyMap(m map[string]any, depth int) (map[string]any, bool) {
	if m == nil {
		return nil, true // encoded as null: the result is a nil map
	}
	if depth > maxCopyDepth {
		return nil, false
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if !utf8.ValidString(k) {
			return nil, false // the encoder replaces invalid bytes, keys may collide
		}
		c, ok := copyValue(v, depth+1)
		if !ok {
			return nil, false
		}
		out[k] = c
	}
	return out, true
}

// copyValue copies one value as a JSON round trip would.
func copyValue(v any, depth int) (any, bool) {
	switch v := v.(type) {
	case nil, bool:
		return v, true
	case string:
		return v, utf8.ValidString(v)
	case int64:
		return v, true
	case int:
		return int64(v), true
	case float64:
		return decodedFloat(v)
	case map[string]any:
		if v == nil {
			return nil, true
		}
		return copyMap(v, depth)
	case []any:
		if v == nil {
			return nil, true
		}
		if depth > maxCopyDepth {
			return nil, false
		}
		out := make([]any, len(v))
		for i, item := range v {
			c, ok := copyValue(item, depth+1)
			if !ok {
				return nil, false
			}
			out[i] = c
		}
		return out, true
	}
	return nil, false
}

// decodedFloat is what f becomes when encoding/json writes it and the API server's
// decoder reads it back. A whole number below 1e21 is written without a point or an
// exponent, in its shortest form (beyond 2^53 that is not f's exact value:
// 2^55+8 is written 36028797018963976, 2^55+24 as 36028797018963990) and read as
// int64 when that text fits; every other finite float is written in its shortest
// form and read back unchanged. NaN and infinities cannot be written.
func decodedFloat(f float64) (any, bool) {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return nil, false
	case f != math.Trunc(f) || math.Abs(f) >= 1e21:
		return f, true
	case math.Abs(f) <= 1<<53:
		return int64(f), true // every whole number up to 2^53 is its own shortest form
	}
	if i, err := strconv.ParseInt(strconv.FormatFloat(f, 'f', -1, 64), 10, 64); err == nil {
		return i, true
	}
	return f, true
}
