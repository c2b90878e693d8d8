package schema

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
)

// JSONSchemaFile is one kind's JSON Schema for editors (yaml-language-server) and
// kubeconform, generated from an embedded CRD.
type JSONSchemaFile struct {
	// Path is relative to the output directory, in the layout of the public CRDs
	// catalog and kubeconform's -schema-location templates:
	// <group>/<kind lower-case>_<version>.json.
	Path string
	// Data is the schema, indented JSON.
	Data []byte
}

// JSONSchemas converts the CRDs of the named releases to JSON Schema (draft-07), one
// file per kind and served version, the way kubeconform's openapi2jsonschema does:
// objects with properties refuse unknown fields unless the CRD preserves them (as the
// API server prunes them), nullable becomes a "null" type. What JSON Schema cannot say
// (CEL rules, list-type invariants) is left to meshguard lint.
func JSONSchemas(releases ...string) ([]JSONSchemaFile, error) {
	crds, err := CRDs(releases...)
	if err != nil {
		return nil, err
	}
	var out []JSONSchemaFile
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if !v.Served || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			raw, err := json.Marshal(v.Schema.OpenAPIV3Schema)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", crd.Name, v.Name, err)
			}
			var s map[string]any
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, fmt.Errorf("%s %s: %w", crd.Name, v.Name, err)
			}
			objectFields(s)
			jsonSchemaNode(s)
			s["$schema"] = "http://json-schema.org/draft-07/schema#"
			s["title"] = crd.Spec.Names.Kind + " " + crd.Spec.Group + "/" + v.Name
			data, err := json.MarshalIndent(s, "", "  ")
			if err != nil {
				return nil, err
			}
			p := path.Join(crd.Spec.Group, strings.ToLower(crd.Spec.Names.Kind)+"_"+v.Name+".json")
			out = append(out, JSONSchemaFile{Path: p, Data: append(data, '\n')})
		}
	}
	return out, nil
}

// objectFields declares apiVersion, kind and metadata at the root when the CRD does
// not (Linkerd's do not; the API server accepts them on every object), so refusing
// unknown root fields does not refuse them.
func objectFields(s map[string]any) {
	props, ok := s["properties"].(map[string]any)
	if !ok {
		return
	}
	for name, typ := range map[string]string{"apiVersion": "string", "kind": "string", "metadata": "object"} {
		if props[name] == nil {
			props[name] = map[string]any{"type": typ}
		}
	}
}

// jsonSchemaNode rewrites one OpenAPI v3 schema node, and those under it, into JSON
// Schema.
func jsonSchemaNode(s map[string]any) {
	if s["nullable"] == true {
		if t, ok := s["type"].(string); ok {
			s["type"] = []any{t, "null"}
		}
	}
	delete(s, "nullable")
	// Kubernetes' "duration" is a Go duration ("5s"); JSON Schema's is ISO 8601
	// ("PT5S"), which would refuse what the API server accepts.
	if s["format"] == "duration" {
		delete(s, "format")
	}
	if s["x-kubernetes-int-or-string"] == true && s["anyOf"] == nil {
		s["anyOf"] = []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
	}
	props, hasProps := s["properties"].(map[string]any)
	if hasProps && s["additionalProperties"] == nil && s["x-kubernetes-preserve-unknown-fields"] != true {
		s["additionalProperties"] = false
	}
	for _, p := range props {
		if m, ok := p.(map[string]any); ok {
			jsonSchemaNode(m)
		}
	}
	for _, key := range []string{"items", "additionalProperties", "not"} {
		if m, ok := s[key].(map[string]any); ok {
			jsonSchemaNode(m)
		}
	}
	for _, key := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := s[key].([]any)
		for _, e := range list {
			if m, ok := e.(map[string]any); ok {
				jsonSchemaNode(m)
			}
		}
	}
}
