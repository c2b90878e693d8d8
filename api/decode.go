package api

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Codes of the structural findings the decoder makes. They live here because the
// decoder is the only place that can see them; validate lists them in its catalogue.
const (
	CodeUnknownField = "MG001"
	CodeWrongType    = "MG002"
)

// CheckResult is what Check finds in a value: type errors (the API server would reject
// the object), unknown fields (the API server would silently prune them) and a copy of
// the value with the wrongly typed parts removed, which always decodes.
type CheckResult struct {
	Errors   field.ErrorList
	Warnings field.ErrorList
	Clean    any
}

// Check walks v (a decoded JSON/YAML value) against the Go type t, field by field, with
// exact (case-sensitive) key matching as Kubernetes does. It never panics on any input.
func Check(t reflect.Type, v any, path *field.Path) CheckResult {
	var r CheckResult
	r.Clean = check(t, v, path, &r)
	return r
}

var rawMessageType = reflect.TypeOf(json.RawMessage(nil))

func check(t reflect.Type, v any, path *field.Path, r *CheckResult) any {
	if v == nil {
		return nil
	}
	if t == rawMessageType || t.Kind() == reflect.Interface {
		return v
	}
	switch t.Kind() {
	case reflect.Pointer:
		return check(t.Elem(), v, path, r)
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			r.Errors = append(r.Errors, wrongType(path, v, "object"))
			return nil
		}
		fields := jsonFields(t)
		out := make(map[string]any, len(m))
		for _, k := range sortedKeys(m) {
			ft, ok := fields[k]
			if !ok {
				r.Warnings = append(r.Warnings, field.NotSupported(path.Child(k), nil, knownNames(fields)).WithOrigin(CodeUnknownField))
				r.Warnings[len(r.Warnings)-1].Detail = unknownDetail(k, fields)
				continue
			}
			if c := check(ft, m[k], path.Child(k), r); c != nil {
				out[k] = c
			}
		}
		return out
	case reflect.Slice:
		l, ok := v.([]any)
		if !ok {
			r.Errors = append(r.Errors, wrongType(path, v, "list"))
			return nil
		}
		out := make([]any, 0, len(l))
		for i, e := range l {
			if c := check(t.Elem(), e, path.Index(i), r); c != nil || e == nil {
				out = append(out, c)
			}
		}
		return out
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			r.Errors = append(r.Errors, wrongType(path, v, "map"))
			return nil
		}
		out := make(map[string]any, len(m))
		for _, k := range sortedKeys(m) {
			if c := check(t.Elem(), m[k], path.Key(k), r); c != nil {
				out[k] = c
			}
		}
		return out
	case reflect.String:
		if _, ok := v.(string); !ok {
			r.Errors = append(r.Errors, wrongType(path, v, "string"))
			return nil
		}
		return v
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			r.Errors = append(r.Errors, wrongType(path, v, "boolean"))
			return nil
		}
		return v
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !isInteger(v) {
			r.Errors = append(r.Errors, wrongType(path, v, "integer"))
			return nil
		}
		return v
	case reflect.Float32, reflect.Float64:
		switch v.(type) {
		case int64, float64, int, json.Number:
			return v
		}
		r.Errors = append(r.Errors, wrongType(path, v, "number"))
		return nil
	}
	return v
}

func isInteger(v any) bool {
	switch n := v.(type) {
	case int64, int, int32:
		return true
	case float64:
		return n == math.Trunc(n) && !math.IsInf(n, 0) && math.Abs(n) < 1<<53
	case json.Number:
		_, err := n.Int64()
		return err == nil
	}
	return false
}

func wrongType(path *field.Path, v any, want string) *field.Error {
	return field.TypeInvalid(path, shortValue(v), fmt.Sprintf("must be %s %s, not %s", article(want), want, TypeName(v))).WithOrigin(CodeWrongType)
}

func article(s string) string {
	if strings.IndexAny(s[:1], "aeiou") == 0 {
		return "an"
	}
	return "a"
}

// TypeName names the JSON type of a decoded value for messages.
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64, int, int32, float64, json.Number:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// shortValue keeps BadValue small: a whole sub-object in an error is noise.
func shortValue(v any) any {
	switch v.(type) {
	case map[string]any, []any:
		return TypeName(v)
	case string:
		s := v.(string)
		if len(s) > 64 {
			return s[:64] + "…"
		}
	}
	return v
}

func unknownDetail(k string, fields map[string]reflect.Type) string {
	for name := range fields {
		if strings.EqualFold(name, k) {
			return fmt.Sprintf("unknown field %q (did you mean %q? keys are case-sensitive); the API server drops it", k, name)
		}
	}
	return fmt.Sprintf("unknown field %q; the API server drops it. Known fields: %s", k, strings.Join(knownNames(fields), ", "))
}

func knownNames(fields map[string]reflect.Type) []string {
	out := make([]string, 0, len(fields))
	for k := range fields {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// fieldCache memoizes jsonFields per struct type. Types never change at run time, so
// this is a pure cache, safe for concurrent use; it keeps reflection off the hot path.
var fieldCache sync.Map // reflect.Type -> map[string]reflect.Type

// jsonFields maps JSON keys to field types; inlined structs are flattened.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	m := buildFields(t)
	fieldCache.Store(t, m)
	return m
}

func buildFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") || (f.Anonymous && name == "") {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			for k, v := range jsonFields(ft) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}
