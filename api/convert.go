package api

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	sigsjson "sigs.k8s.io/json"
)

// Decode converts a checked value into out (a pointer to a typed struct) with
// case-sensitive keys. Call it on CheckResult.Clean: then it cannot fail on types.
//
// The result is by definition that of decodeRoundTrip (json.Marshal, then
// sigs.k8s.io/json's case-sensitive, int-preserving Unmarshal), which is what the API
// server's decoding does. Decode runs on every admission request, so it converts the
// decoded value directly with reflection instead; whatever the direct conversion does
// not reproduce exactly (an unusual Go type in v or out, a type mismatch, a number or
// string the round trip would change in a way not mimicked here, a non-zero *out)
// goes through the round trip itself, so errors and partial results stay identical.
func Decode(v any, out any) error {
	if decodeDirect(v, out) {
		return nil
	}
	return decodeRoundTrip(v, out)
}

// decodeRoundTrip is the reference behaviour of Decode and its fallback.
func decodeRoundTrip(v any, out any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return sigsjson.UnmarshalCaseSensitivePreserveInts(data, out)
}

// maxDirectDepth bounds the direct conversion's recursion. Deeper values (and
// cyclic ones, which json.Marshal refuses) take the round trip, which has its own
// limits and errors.
const maxDirectDepth = 1000

// decodeDirect stores v into out exactly as decodeRoundTrip would when that
// succeeds, and reports whether it did. When it returns false, *out is as it was.
func decodeDirect(v any, out any) bool {
	rv := reflect.ValueOf(out)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return false
	}
	dst := rv.Elem()
	// The round trip merges into existing maps, slices and pointers; only a zero
	// target makes "decode into a fresh value" the same thing, and lets a failed
	// attempt be undone by zeroing.
	if !directSupported(dst.Type()) || !dst.IsZero() {
		return false
	}
	if !convert(v, dst, 0) {
		dst.SetZero()
		return false
	}
	return true
}

// isNull reports whether json.Marshal writes v as null: nil, and nil maps and lists.
func isNull(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]any:
		return x == nil
	case []any:
		return x == nil
	}
	return false
}

// convert stores v into dst (a zero, settable value of a directSupported type) as
// the round trip would, or returns false.
func convert(v any, dst reflect.Value, depth int) bool {
	if depth > maxDirectDepth {
		return false
	}
	if isNull(v) {
		// null sets interfaces, pointers, maps and slices to nil and leaves every
		// other kind alone: dst is zero either way.
		return true
	}
	switch dst.Kind() {
	case reflect.Interface:
		c, ok := copyFree(v, depth)
		if ok && c != nil {
			dst.Set(reflect.ValueOf(c))
		}
		return ok
	case reflect.Pointer:
		p := reflect.New(dst.Type().Elem())
		if !convert(v, p.Elem(), depth+1) {
			return false
		}
		dst.Set(p)
		return true
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		fields := directFields(dst.Type())
		for k, e := range m {
			i, ok := fields[k]
			if !ok {
				// The round trip drops unknown keys, but json.Marshal still has to
				// accept their values.
				if !marshalable(e, depth+1) {
					return false
				}
				continue
			}
			if !convert(e, dst.Field(i), depth+1) {
				return false
			}
		}
		return true
	case reflect.Slice:
		l, ok := v.([]any)
		if !ok {
			return false
		}
		if s, ok := dst.Addr().Interface().(*[]string); ok {
			return convertStrings(l, s)
		}
		s := reflect.MakeSlice(dst.Type(), len(l), len(l))
		for i, e := range l {
			if !convert(e, s.Index(i), depth+1) {
				return false
			}
		}
		dst.Set(s)
		return true
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if s, ok := dst.Addr().Interface().(*map[string]string); ok {
			return convertStringMap(m, s)
		}
		out := reflect.MakeMapWithSize(dst.Type(), len(m))
		kt, et := dst.Type().Key(), dst.Type().Elem()
		for k, e := range m {
			if !utf8.ValidString(k) {
				return false // json.Marshal rewrites the key; two keys may collide
			}
			ev := reflect.New(et).Elem()
			if !convert(e, ev, depth+1) {
				return false
			}
			out.SetMapIndex(reflect.ValueOf(k).Convert(kt), ev)
		}
		dst.Set(out)
		return true
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return false
		}
		dst.SetString(validUTF8(s))
		return true
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return false
		}
		dst.SetBool(b)
		return true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var n int64
		switch x := v.(type) {
		case int64:
			n = x
		case int:
			n = int64(x)
		case float64:
			i, ok := floatAsInt(x)
			if !ok {
				return false
			}
			n = i
		default:
			return false
		}
		if dst.OverflowInt(n) {
			return false
		}
		dst.SetInt(n)
		return true
	case reflect.Float64:
		switch x := v.(type) {
		case int64:
			// ParseFloat of the decimal and the conversion both round to nearest even.
			dst.SetFloat(float64(x))
		case int:
			dst.SetFloat(float64(x))
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return false
			}
			dst.SetFloat(x) // json.Marshal writes the shortest text that parses back to x
		default:
			return false
		}
		return true
	}
	return false
}

// convertStrings and convertStringMap are convert for the two most common
// composite types, without reflection per element.
func convertStrings(l []any, dst *[]string) bool {
	out := make([]string, len(l))
	for i, e := range l {
		switch x := e.(type) {
		case string:
			out[i] = validUTF8(x)
		default:
			if !isNull(e) {
				return false
			}
		}
	}
	*dst = out
	return true
}

func convertStringMap(m map[string]any, dst *map[string]string) bool {
	out := make(map[string]string, len(m))
	for k, e := range m {
		if !utf8.ValidString(k) {
			return false
		}
		switch x := e.(type) {
		case string:
			out[k] = validUTF8(x)
		default:
			if !isNull(e) {
				return false
			}
			out[k] = "" // null into a map element stores the zero value
		}
	}
	*dst = out
	return true
}

// copyFree is what the round trip makes of v in an `any`: a deep copy with maps as
// map[string]any, lists as []any and numbers as PreserveInts parses json.Marshal's
// text of them. It reports false for anything it does not reproduce exactly.
func copyFree(v any, depth int) (any, bool) {
	if depth > maxDirectDepth {
		return nil, false
	}
	switch x := v.(type) {
	case nil, bool:
		return x, true
	case string:
		return validUTF8(x), true
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, false
		}
		if n, ok := floatAsInt(x); ok {
			return n, true
		}
		return x, true
	case map[string]any:
		if x == nil {
			return nil, true
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			if !utf8.ValidString(k) {
				return nil, false
			}
			c, ok := copyFree(e, depth+1)
			if !ok {
				return nil, false
			}
			out[k] = c
		}
		return out, true
	case []any:
		if x == nil {
			return nil, true
		}
		out := make([]any, len(x))
		for i, e := range x {
			c, ok := copyFree(e, depth+1)
			if !ok {
				return nil, false
			}
			out[i] = c
		}
		return out, true
	}
	return nil, false
}

// marshalable reports whether json.Marshal surely accepts v: the value of a key the
// decoding drops still makes the whole round trip fail if it cannot be encoded.
func marshalable(v any, depth int) bool {
	if depth > maxDirectDepth {
		return false
	}
	switch x := v.(type) {
	case nil, bool, string, int64, int:
		return true
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case map[string]any:
		for _, e := range x {
			if !marshalable(e, depth+1) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range x {
			if !marshalable(e, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// floatAsInt is what strconv.ParseInt makes of json.Marshal's text for the finite
// float64 f, which is where the round trip turns a float into an integer (in an
// `any` under PreserveInts, or in an integer field). encoding/json writes f like
// ES6: exponent form (never an integer) below 1e-6 and from 1e21, otherwise
// strconv's shortest 'f' form, which has no '.' exactly when f is integral.
func floatAsInt(f float64) (int64, bool) {
	if f != math.Trunc(f) || math.IsInf(f, 0) {
		return 0, false
	}
	abs := math.Abs(f)
	if abs < 1<<53 {
		// Every integer here is a float64 and the shortest text is its exact digits.
		return int64(f), true
	}
	if abs >= 1e21 {
		return 0, false
	}
	// Above 2^53 the shortest text may end in zeros that are not f's exact digits
	// (2^62 is written 4611686018427388000), so parse the text itself.
	n, err := strconv.ParseInt(strconv.FormatFloat(f, 'f', -1, 64), 10, 64)
	return n, err == nil
}

// validUTF8 is s as json.Marshal writes it: every byte that is not part of a valid
// UTF-8 sequence becomes U+FFFD (one per byte, unlike strings.ToValidUTF8).
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
