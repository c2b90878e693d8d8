package crds

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// rawMessageType is schemaless like api.Free: it holds any JSON value.
var rawMessageType = reflect.TypeOf(json.RawMessage(nil))

// intOrStringType is Kubernetes' int-or-string, a struct in Go but an integer or a
// string in JSON.
var intOrStringType = reflect.TypeOf(intstr.IntOrString{})

// SchemaOf returns the structural OpenAPI v3 schema of the JSON form of t, derived by
// reflection from the same Go types meshguard decodes into, so the test API server
// keeps exactly what meshguard understands and nothing drifts between the two.
//
// Objects list their json-tagged fields as properties and require none: a missing
// field is meshguard's finding to report (with its own code and message), not the
// API server's. Interfaces (api.Free) and json.RawMessage become
// x-kubernetes-preserve-unknown-fields with no type, which is how a structural
// schema says "any JSON value, keep it as is".
func SchemaOf(t reflect.Type) apiextensionsv1.JSONSchemaProps {
	return schemaOf(t, map[reflect.Type]bool{})
}

// schemaOf carries the struct types on the current path: a recursive type cannot be
// expanded into a finite schema, so the recursion point is left schemaless.
func schemaOf(t reflect.Type, onPath map[reflect.Type]bool) apiextensionsv1.JSONSchemaProps {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawMessageType || t.Kind() == reflect.Interface {
		return preserveUnknown()
	}
	if t == intOrStringType {
		return apiextensionsv1.JSONSchemaProps{XIntOrString: true,
			AnyOf: []apiextensionsv1.JSONSchemaProps{{Type: "integer"}, {Type: "string"}}}
	}
	switch t.Kind() {
	case reflect.Struct:
		if onPath[t] {
			return preserveUnknown()
		}
		onPath[t] = true
		defer delete(onPath, t)
		props := map[string]apiextensionsv1.JSONSchemaProps{}
		for _, f := range jsonFields(t) {
			props[f.name] = schemaOf(f.typ, onPath)
		}
		return apiextensionsv1.JSONSchemaProps{Type: "object", Properties: props}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			// encoding/json writes []byte as a base64 string.
			return apiextensionsv1.JSONSchemaProps{Type: "string", Format: "byte"}
		}
		items := schemaOf(t.Elem(), onPath)
		return apiextensionsv1.JSONSchemaProps{Type: "array",
			Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &items}}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			panic(fmt.Sprintf("crds: map key %s of %s has no JSON object form", t.Key(), t))
		}
		vals := schemaOf(t.Elem(), onPath)
		return apiextensionsv1.JSONSchemaProps{Type: "object",
			AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &vals}}
	case reflect.String:
		return apiextensionsv1.JSONSchemaProps{Type: "string"}
	case reflect.Bool:
		return apiextensionsv1.JSONSchemaProps{Type: "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return apiextensionsv1.JSONSchemaProps{Type: "integer", Format: "int64"}
	case reflect.Float32, reflect.Float64:
		return apiextensionsv1.JSONSchemaProps{Type: "number"}
	}
	// Channels, funcs and the like have no JSON form; failing here beats a schema that
	// silently prunes a field the Go type thinks it has.
	panic(fmt.Sprintf("crds: %s has no JSON schema", t))
}

// preserveUnknown is the schema of a part meshguard does not model: any value, kept.
func preserveUnknown() apiextensionsv1.JSONSchemaProps {
	return apiextensionsv1.JSONSchemaProps{XPreserveUnknownFields: ptrTrue()}
}

func ptrTrue() *bool { b := true; return &b }

type jsonField struct {
	name string
	typ  reflect.Type
}

// jsonFields lists the JSON keys of a struct the way encoding/json (and api.Check)
// see them: `json:"-"` skipped, untagged fields under their Go name, embedded or
// `,inline` structs flattened. omitempty only affects output, never which keys
// exist, so it needs no handling beyond not making the field required.
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if strings.Contains(opts, "inline") || (f.Anonymous && name == "") {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				out = append(out, jsonFields(ft)...)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, jsonField{name: name, typ: f.Type})
	}
	// Later fields win, as in api.Check; sort for a deterministic listing.
	seen := map[string]int{}
	var dedup []jsonField
	for _, f := range out {
		if i, ok := seen[f.name]; ok {
			dedup[i] = f
			continue
		}
		seen[f.name] = len(dedup)
		dedup = append(dedup, f)
	}
	sort.Slice(dedup, func(i, j int) bool { return dedup[i].name < dedup[j].name })
	return dedup
}
