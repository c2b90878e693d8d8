package api

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	sigsjson "sigs.k8s.io/json"
)

// Decode converts a checked value into out (a pointer to a typed struct) with
// case-sensitive keys. Call it on CheckResult.Clean: then it cannot fail on types.
// It is json.Marshal followed by sigs.k8s.io/json's case-sensitive, int-preserving
// Unmarshal, which is what the API server's decoding does.
//
// The JSON is written by appendJSON, not json.Marshal: for the maps, slices and
// scalars a decoder produces it writes what json.Marshal writes, into one buffer
// sized first, without reflection. On a 2.9 MB MeshTrafficPermission json.Marshal allocated
// ~30 MB (a sorted key slice and reflection per map, a pooled buffer copied
// out), as much as the typed spec and the decoding together (issue 27).
func Decode(v any, out any) error {
	data, err := toJSON(v)
	if err != nil {
		return err
	}
	return sigsjson.UnmarshalCaseSensitivePreserveInts(data, out)
}

// DecodeStrict is Decode that also returns the dotted paths of the fields of v
// that out's type does not have: Kuma's proto decoder ignores them, so they are
// likely typos. One decoding answers both (sigs.k8s.io/json's strict checks do
// not change what is stored); a second, strict decoding of every spec was a
// sixth of what validating a Dataplane cost.
func DecodeStrict(v any, out any) (unknown []string, err error) {
	data, err := toJSON(v)
	if err != nil {
		return nil, err
	}
	strict, err := sigsjson.UnmarshalStrict(data, out, sigsjson.DisallowUnknownFields)
	if err != nil {
		return nil, err
	}
	for _, e := range strict {
		if _, rest, ok := strings.Cut(e.Error(), `unknown field "`); ok {
			unknown = append(unknown, strings.TrimSuffix(rest, `"`))
		}
	}
	return unknown, nil
}

// toJSON is v's JSON as json.Marshal writes it, in one buffer sized first.
func toJSON(v any) ([]byte, error) {
	return appendJSON(make([]byte, 0, sizeJSON(v)), v, new(keyStack))
}

// sizeJSON is about the length of v's JSON, at least it unless strings need
// escapes or values are of types appendJSON hands to json.Marshal, so that
// Decode allocates its buffer once: append grows a large slice by a quarter at
// a time, which for a 3 MB document allocated five times its size.
func sizeJSON(v any) int {
	switch t := v.(type) {
	case nil:
		return 4
	case string:
		return len(t) + 2
	case bool:
		return 5
	case float64, int64, int:
		return 24
	case map[string]any:
		n := 2
		for k, e := range t {
			n += len(k) + 4 + sizeJSON(e)
		}
		return n
	case []any:
		n := 2
		for _, e := range t {
			n += 1 + sizeJSON(e)
		}
		return n
	}
	return 64
}

// keyStack holds the sorted keys of the maps appendJSON is inside, one slice
// for the whole value instead of one per map.
type keyStack struct{ keys []string }

// appendJSON appends v as json.Marshal encodes it: map keys sorted, strings
// with invalid UTF-8 replaced by U+FFFD, floats formatted as encoding/json
// formats them (so that a whole number decodes into an integer field exactly
// when it would have). Values of other types than a JSON decoder produces go
// through json.Marshal.
func appendJSON(b []byte, v any, ks *keyStack) ([]byte, error) {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return AppendJSONString(b, t, true), nil
	case bool:
		return strconv.AppendBool(b, t), nil
	case float64:
		return appendFloat(b, t)
	case int64:
		return strconv.AppendInt(b, t, 10), nil
	case int:
		return strconv.AppendInt(b, int64(t), 10), nil
	case map[string]any:
		if t == nil {
			return append(b, "null"...), nil
		}
		return appendMap(b, t, ks)
	case []any:
		if t == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, e, ks); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, data...), nil
}

// appendMap appends m with its keys sorted, as json.Marshal does.
func appendMap(b []byte, m map[string]any, ks *keyStack) ([]byte, error) {
	base := len(ks.keys)
	for k := range m {
		ks.keys = append(ks.keys, k)
	}
	keys := ks.keys[base:]
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendJSONString(b, k, true)
		b = append(b, ':')
		var err error
		if b, err = appendJSON(b, m[k], ks); err != nil {
			return nil, err
		}
	}
	ks.keys = ks.keys[:base]
	return append(b, '}'), nil
}

// appendFloat formats f as encoding/json does: 'f' notation, 'e' below 1e-6 and
// from 1e21 on (with a one-digit exponent kept short), and no NaN or infinity.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, &json.UnsupportedValueError{Str: strconv.FormatFloat(f, 'g', -1, 64)}
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// AppendJSONString appends s quoted byte for byte as encoding/json quotes it:
// the escapes JSON requires, <, > and & when escapeHTML (json.Marshal's HTML
// escaping; an Encoder with SetEscapeHTML(false) leaves them), U+2028 and U+2029
// escaped, and each byte of invalid UTF-8 as \ufffd. The decoder's JSON and
// lint's findings are written with it instead of encoding/json's reflection.
func AppendJSONString(b []byte, s string, escapeHTML bool) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!escapeHTML || c != '<' && c != '>' && c != '&') {
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
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
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
	return append(b, '"')
}
