package api

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	sigsjson "sigs.k8s.io/json"
)

// Decode converts a checked value into out (a pointer to a typed struct) with
// case-sensitive keys. Call it on CheckResult.Clean: then it cannot fail on types.
// It is json.Marshal followed by sigs.k8s.io/json's case-sensitive, int-preserving
// Unmarshal, which is what the API server's decoding does. The values a decoded
// object holds are written by appendJSON, byte for byte what json.Marshal writes
// (reflection and its key sorting were a third of Decode's cost); anything else
// goes through json.Marshal.
func Decode(v any, out any) error {
	data, ok := appendJSON(make([]byte, 0, 512), v, 0)
	if !ok {
		var err error
		if data, err = json.Marshal(v); err != nil {
			return err
		}
	}
	return sigsjson.UnmarshalCaseSensitivePreserveInts(data, out)
}

// maxJSONDepth is how deep appendJSON follows a value before leaving it to
// json.Marshal, which reports cycles and excessive depth its own way.
const maxJSONDepth = 1000

// appendJSON appends v as json.Marshal writes it, for the values of a decoded
// object: maps with string keys (sorted), lists, strings, bools, nil, int,
// int64 and finite float64. ok is false for anything else (another type, a NaN,
// a string that is not UTF-8), which the caller gives to json.Marshal.
func appendJSON(b []byte, v any, depth int) ([]byte, bool) {
	if depth > maxJSONDepth {
		return b, false
	}
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, v), true
	case string:
		return appendJSONString(b, v)
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case float64:
		return appendJSONFloat(b, v)
	case []any:
		if v == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, item := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendJSON(b, item, depth+1); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		if v == nil {
			return append(b, "null"...), true
		}
		return appendJSONObject(b, v, depth)
	}
	return b, false
}

// appendJSONObject writes m with its keys sorted, as json.Marshal does.
func appendJSONObject(b []byte, m map[string]any, depth int) ([]byte, bool) {
	var buf [16]string
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = appendJSONString(b, k); !ok {
			return b, false
		}
		b = append(b, ':')
		if b, ok = appendJSON(b, m[k], depth+1); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendJSONFloat writes f as encoding/json does: the shortest form, in exponent
// notation below 1e-6 and from 1e21, with a two-digit exponent at least.
func appendJSONFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' { // clean up e-09 to e-9, as encoding/json does
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// appendJSONString writes s quoted as json.Marshal does (HTML-safe: <, > and &
// escaped, and U+2028 and U+2029); ok is false when s is not UTF-8, whose
// replacement json.Marshal decides.
func appendJSONString(b []byte, s string) ([]byte, bool) {
	if !utf8.ValidString(s) {
		return b, false
	}
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"'), true
}
