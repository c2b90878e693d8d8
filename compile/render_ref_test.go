package compile

import (
	"bytes"
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// This file keeps the encoding/json implementation of the preview document that
// MarshalJSON and MarshalJSONCompact used before the hand-written encoder
// (render_json.go). It is the reference the equality tests, the fuzz test and the
// benchmark compare against: the new encoder must produce exactly these bytes.

// refJSONPreview fixes the key order of one preview in the JSON document.
type refJSONPreview struct {
	Target   Target           `json:"target"`
	Scope    string           `json:"scope"`
	Policies []string         `json:"policies"`
	Items    []PreviewItem    `json:"items"`
	Form     Form             `json:"form"`
	RBAC     json.RawMessage  `json:"rbac"`
	HTTPRBAC json.RawMessage  `json:"httpRbac,omitempty"`
	Warnings []string         `json:"warnings,omitempty"`
	Findings []refJSONFinding `json:"findings,omitempty"`
}

type refJSONFinding struct {
	Code    string `json:"code"`
	Policy  string `json:"policy"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// refJSONDoc is the whole JSON document of MarshalJSON and MarshalJSONCompact.
type refJSONDoc struct {
	Previews []refJSONPreview `json:"previews"`
}

// refMarshalJSON is the reference of MarshalJSON.
func refMarshalJSON(previews []Preview) ([]byte, error) {
	doc, err := refNewJSONDoc(previews)
	if err != nil {
		return nil, err
	}
	return json.MarshalIndent(doc, "", "  ")
}

// refMarshalJSONCompact is the reference of MarshalJSONCompact.
func refMarshalJSONCompact(previews []Preview) ([]byte, error) {
	doc, err := refNewJSONDoc(previews)
	if err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}

// refNewJSONDoc converts previews to the JSON document's types.
func refNewJSONDoc(previews []Preview) (refJSONDoc, error) {
	doc := refJSONDoc{Previews: make([]refJSONPreview, 0, len(previews))}
	for _, p := range previews {
		jp := refJSONPreview{Target: p.Target, Scope: p.Scope, Policies: p.Policies, Items: p.Items, Form: p.Form}
		if jp.Policies == nil {
			jp.Policies = []string{}
		}
		if jp.Items == nil {
			jp.Items = []PreviewItem{}
		}
		var err error
		if jp.RBAC, err = refProtoJSON(p.RBAC); err != nil {
			return refJSONDoc{}, err
		}
		if p.HTTPRBAC != nil {
			if jp.HTTPRBAC, err = refProtoJSON(p.HTTPRBAC); err != nil {
				return refJSONDoc{}, err
			}
		}
		jp.Warnings = p.Warnings
		for _, f := range p.Findings {
			jp.Findings = append(jp.Findings, refJSONFinding{Code: f.Origin, Policy: fmt.Sprint(f.BadValue), Field: f.Field, Message: f.Detail})
		}
		doc.Previews = append(doc.Previews, jp)
	}
	return doc, nil
}

func refProtoJSON(m proto.Message) (json.RawMessage, error) {
	if m == nil {
		return json.RawMessage("null"), nil
	}
	b, err := protojson.Marshal(m)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
