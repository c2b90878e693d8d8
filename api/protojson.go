package api

import (
	"reflect"
	"strconv"
	"strings"
)

// ProtoJSONNames returns spec with every key that is a proto field's original
// (snake_case) name renamed to its JSON name (lowerCamelCase), guided by the typed
// spec into. Kuma decodes the specs of its proto kinds (Mesh, MeshGateway, ...) with
// protobuf's JSON decoder, which takes both names ("status_code" and "statusCode");
// the typed specs spell only the JSON name. It also turns numbers written as strings
// ("8080"), which that decoder takes, into numbers. Map-valued fields (tags) and
// free-form parts are left alone; spec itself is not changed.
func ProtoJSONNames(spec map[string]any, into any) map[string]any {
	out, _ := protoNames(reflect.TypeOf(into), spec).(map[string]any)
	return out
}

func protoNames(t reflect.Type, v any) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		fields := jsonFields(t)
		out := make(map[string]any, len(m))
		for k, x := range m {
			name := k
			if _, known := fields[k]; !known {
				if c := lowerCamel(k); c != k {
					if _, ok := fields[c]; ok {
						if _, dup := m[c]; dup {
							continue // the JSON name is given too; it decides
						}
						name = c
					}
				}
			}
			if ft, ok := fields[name]; ok {
				x = protoNames(ft, x)
			}
			out[name] = x
		}
		return out
	case reflect.Int32, reflect.Int64, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		// protobuf's JSON decoder takes a number as a string too ("8080").
		if str, ok := v.(string); ok {
			if n, err := strconv.ParseInt(str, 10, 64); err == nil {
				return n
			}
			if f, err := strconv.ParseFloat(str, 64); err == nil && (t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64) {
				return f
			}
		}
		return v
	case reflect.Slice:
		items, ok := v.([]any)
		if !ok {
			return v
		}
		out := make([]any, len(items))
		for i, it := range items {
			out[i] = protoNames(t.Elem(), it)
		}
		return out
	}
	return v
}

// lowerCamel is protobuf's JSON name of a field name: underscores dropped, the letter
// after each upper-cased.
func lowerCamel(s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	var b strings.Builder
	up := false
	for _, c := range s {
		switch {
		case c == '_':
			up = true
		case up && c >= 'a' && c <= 'z':
			b.WriteRune(c - 'a' + 'A')
			up = false
		default:
			b.WriteRune(c)
			up = false
		}
	}
	return b.String()
}
