package api

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"unicode"
)

// Which Go types Decode's direct conversion handles, and their JSON keys. Anything
// outside this set goes through the reference round trip.

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	numberType          = reflect.TypeFor[json.Number]()
)

// supportedCache memoizes directSupported per type and directFieldCache the field
// index of each struct type. Types never change at run time, so both are pure
// caches, safe for concurrent use.
var (
	supportedCache   sync.Map // reflect.Type -> bool
	directFieldCache sync.Map // reflect.Type -> map[string]int
)

// directSupported reports whether convert handles every type reachable from t
// exactly like encoding/json: no custom unmarshalers, no []byte (base64), no
// unsigned or float32 numbers, no ",string" options and no embedded structs (whose
// field promotion and conflict rules convert does not reimplement).
func directSupported(t reflect.Type) bool {
	if ok, hit := supportedCache.Load(t); hit {
		return ok.(bool)
	}
	ok := supported(t, map[reflect.Type]bool{})
	supportedCache.Store(t, ok)
	return ok
}

func supported(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return true // a recursive type: its other paths are checked where first met
	}
	seen[t] = true
	if t.Kind() != reflect.Interface &&
		(reflect.PointerTo(t).Implements(unmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType)) {
		return false
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Float64:
		return true
	case reflect.String:
		return t != numberType
	case reflect.Interface:
		return t.NumMethod() == 0
	case reflect.Pointer, reflect.Slice:
		return supported(t.Elem(), seen)
	case reflect.Map:
		return t.Key().Kind() == reflect.String && supported(t.Key(), seen) && supported(t.Elem(), seen)
	case reflect.Struct:
		names := map[string]bool{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Anonymous {
				return false
			}
			name, skip, ok := fieldName(f)
			if !ok {
				return false
			}
			if skip {
				continue
			}
			if names[name] || !supported(f.Type, seen) {
				return false
			}
			names[name] = true
		}
		return true
	}
	return false
}

// fieldName is the JSON key encoding/json gives a non-embedded struct field; skip
// means the field is not decoded at all, !ok that it uses an option convert lacks.
func fieldName(f reflect.StructField) (name string, skip, ok bool) {
	if !f.IsExported() {
		return "", true, true
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", true, true
	}
	name, opts, _ := strings.Cut(tag, ",")
	for _, o := range strings.Split(opts, ",") {
		if o == "string" {
			return "", false, false
		}
	}
	if !validTagName(name) {
		name = f.Name
	}
	return name, false, true
}

// validTagName is encoding/json's isValidTag: other tag names are ignored.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// directFields maps the JSON keys of a directSupported struct type to field indexes.
func directFields(t reflect.Type) map[string]int {
	if m, ok := directFieldCache.Load(t); ok {
		return m.(map[string]int)
	}
	m := map[string]int{}
	for i := 0; i < t.NumField(); i++ {
		if name, skip, ok := fieldName(t.Field(i)); ok && !skip {
			m[name] = i
		}
	}
	directFieldCache.Store(t, m)
	return m
}
