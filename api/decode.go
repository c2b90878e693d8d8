package api

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Codes of the structural findings the decoder makes. They live here because the
// decoder is the only place that can see them; rules/catalogue.yaml documents them.
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
	var steps [16]pathStep
	r.Clean, _ = check(t, v, &walkPath{root: path, steps: steps[:0]}, &r)
	return r
}

// walkPath is the field path of the node check is at: the root and the steps
// below it, pushed and popped as the walk descends. The walk visits every node of
// a spec but only findings need a *field.Path; building one per node was the
// largest share of its allocations.
type walkPath struct {
	root  *field.Path
	steps []pathStep
}

type pathStep struct {
	kind  byte // stepChild, stepIndex or stepKey
	name  string
	index int
}

const (
	stepChild byte = iota
	stepIndex
	stepKey
)

func (w *walkPath) push(s pathStep) { w.steps = append(w.steps, s) }

func (w *walkPath) pop() { w.steps = w.steps[:len(w.steps)-1] }

// path builds the *field.Path of the current node.
func (w *walkPath) path() *field.Path {
	p := w.root
	for _, s := range w.steps {
		switch s.kind {
		case stepIndex:
			p = p.Index(s.index)
		case stepKey:
			p = p.Key(s.name)
		default:
			p = p.Child(s.name)
		}
	}
	return p
}

var rawMessageType = reflect.TypeOf(json.RawMessage(nil))

// check walks v against the Go type t: values of the wrong JSON type become errors
// (and are dropped), unknown object fields become warnings; the result is v with
// both removed, ready to decode. changed says whether anything was removed: a
// well-formed spec (the usual case, and every object the API server has checked)
// comes back as v itself, shared, not copied (a 2.9 MB policy's copy was 30 MB,
// live beside the original while it was decoded). Callers only read the result.
func check(t reflect.Type, v any, path *walkPath, r *CheckResult) (clean any, changed bool) {
	if v == nil {
		return nil, false
	}
	if t == rawMessageType || t.Kind() == reflect.Interface {
		return v, false
	}
	if t == intOrStringType {
		return checkIntOrString(v, path, r)
	}
	switch t.Kind() {
	case reflect.Pointer:
		return check(t.Elem(), v, path, r)
	case reflect.Struct:
		return checkStruct(t, v, path, r)
	case reflect.Slice:
		return checkSlice(t, v, path, r)
	case reflect.Map:
		return checkMap(t, v, path, r)
	}
	if want := scalarMismatch(t.Kind(), v); want != "" {
		r.Errors = append(r.Errors, wrongType(path, v, want))
		return nil, true
	}
	return v, false
}

// intOrStringType is Kubernetes' int-or-string (percentages, decimal factors): a
// struct in Go, but a string or an integer in JSON.
var intOrStringType = reflect.TypeOf(intstr.IntOrString{})

// checkIntOrString accepts what intstr.IntOrString decodes: a string or an integer
// that fits in 32 bits.
func checkIntOrString(v any, path *walkPath, r *CheckResult) (any, bool) {
	if _, ok := v.(string); ok {
		return v, false
	}
	if isInteger(v) {
		if n, ok := asInt64(v); ok && n >= math.MinInt32 && n <= math.MaxInt32 {
			return v, false
		}
	}
	r.Errors = append(r.Errors, wrongType(path, v, "integer (32-bit) or string"))
	return nil, true
}

// asInt64 converts an integer value (as isInteger accepts it) to int64.
func asInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case float64:
		return int64(n), true
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

func checkStruct(t reflect.Type, v any, path *walkPath, r *CheckResult) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		r.Errors = append(r.Errors, wrongType(path, v, "object"))
		return nil, true
	}
	fields := jsonFields(t)
	var out map[string]any // made at the first member removed or changed
	keys := sortedKeys(m)
	for i, k := range keys {
		ft, known := fields[k]
		var c any
		changed := true
		if known {
			path.push(pathStep{kind: stepChild, name: k})
			c, changed = check(ft, m[k], path, r)
			path.pop()
		} else {
			r.Warnings = append(r.Warnings, UnknownField(path.path().Child(k), unknownDetail(k, fields)))
		}
		out = keepMember(out, m, keys, i, c, changed || c == nil)
	}
	if out == nil {
		return m, false
	}
	return out, true
}

// keepMember records member keys[i] of m, cleaned to c, in out: out stays nil
// while every member so far is kept unchanged, and is made (with those members) at
// the first one that is not. A nil c drops the member.
func keepMember(out, m map[string]any, keys []string, i int, c any, changed bool) map[string]any {
	if changed && out == nil {
		out = make(map[string]any, len(m))
		for _, k := range keys[:i] {
			out[k] = m[k]
		}
	}
	if out != nil && c != nil {
		out[keys[i]] = c
	}
	return out
}

func checkSlice(t reflect.Type, v any, path *walkPath, r *CheckResult) (any, bool) {
	l, ok := v.([]any)
	if !ok {
		r.Errors = append(r.Errors, wrongType(path, v, "list"))
		return nil, true
	}
	var out []any // made at the first item removed or changed
	for i, e := range l {
		path.push(pathStep{kind: stepIndex, index: i})
		c, changed := check(t.Elem(), e, path, r)
		path.pop()
		if changed && out == nil {
			out = append(make([]any, 0, len(l)), l[:i]...)
		}
		if out != nil && (c != nil || e == nil) {
			out = append(out, c)
		}
	}
	if out == nil {
		return l, false
	}
	return out, true
}

func checkMap(t reflect.Type, v any, path *walkPath, r *CheckResult) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		r.Errors = append(r.Errors, wrongType(path, v, "map"))
		return nil, true
	}
	var out map[string]any
	keys := sortedKeys(m)
	for i, k := range keys {
		path.push(pathStep{kind: stepKey, name: k})
		c, changed := check(t.Elem(), m[k], path, r)
		path.pop()
		out = keepMember(out, m, keys, i, c, changed || c == nil)
	}
	if out == nil {
		return m, false
	}
	return out, true
}

// scalarMismatch is the JSON type a scalar Go kind wants when v is not of it, ""
// when v fits (or the kind is not checked).
func scalarMismatch(k reflect.Kind, v any) string {
	switch k {
	case reflect.String:
		if _, ok := v.(string); !ok {
			return "string"
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return "boolean"
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !isInteger(v) {
			return "integer"
		}
	case reflect.Float32, reflect.Float64:
		switch v.(type) {
		case int64, float64, int, json.Number:
		default:
			return "number"
		}
	}
	return ""
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

func wrongType(path *walkPath, v any, want string) *field.Error {
	return field.TypeInvalid(path.path(), shortValue(v), fmt.Sprintf("must be %s %s, not %s", article(want), want, TypeName(v))).WithOrigin(CodeWrongType)
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

// UnknownField is the MG001 finding for a key the type does not have. It has no
// value to show (the key is the last step of the path); the detail is the hint
// (UnknownFieldHint), and validate words the whole message for the door, since
// what the API server does with the field depends on the client (see
// UnknownFieldMode).
func UnknownField(p *field.Path, hint string) *field.Error {
	return field.Invalid(p, field.OmitValueType{}, hint).WithOrigin(CodeUnknownField)
}

func unknownDetail(k string, fields map[string]reflect.Type) string {
	return UnknownFieldHint(k, knownNames(fields))
}

// UnknownFieldHint is what MG001 suggests for key k where names are the fields the
// schema has there: the closest name when one is close (saying that keys are
// case-sensitive when only the case differs), else the list; "" when the schema
// has no fields there.
func UnknownFieldHint(k string, names []string) string {
	switch s := Suggest(k, names); {
	case s != "" && strings.EqualFold(s, k):
		return fmt.Sprintf("did you mean %q? Keys are case-sensitive", s)
	case s != "":
		return fmt.Sprintf("did you mean %q?", s)
	}
	if len(names) == 0 {
		return ""
	}
	return "known fields: " + strings.Join(names, ", ")
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
