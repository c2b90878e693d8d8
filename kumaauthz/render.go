package kumaauthz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"sigs.k8s.io/yaml"
)

// MarshalJSON renders previews as {"previews": [...]} with each Envoy config as its
// protojson object, indented for people (`meshguard preview -o json`). protojson
// randomizes whitespace on purpose; the document is built compact with the configs
// compacted (MarshalJSONCompact) and then indented, which makes the bytes stable
// for golden tests and diffs. This is what json.MarshalIndent did: json.Marshal,
// then the same indentation pass as json.Indent.
func MarshalJSON(previews []Preview) ([]byte, error) {
	b, err := MarshalJSONCompact(previews)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// MarshalJSONCompact is MarshalJSON without indentation: the same document (it
// decodes to the same value), about half the bytes, for machine readers such as
// the admission webhook's `rbac-preview` audit annotation. Each Envoy config is
// checked with its Validate() (the constraints Envoy enforces on load) and written by
// protojson from the go-control-plane message itself.
func MarshalJSONCompact(previews []Preview) ([]byte, error) {
	doc, err := newJSONDoc(previews)
	if err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}

// MarshalJSONCompactString is MarshalJSONCompact as a string, written once: the
// admission webhook's annotation is a string, and converting MarshalJSONCompact's
// bytes would copy them.
func MarshalJSONCompactString(previews []Preview) (string, error) {
	doc, err := newJSONDoc(previews)
	if err != nil {
		return "", err
	}
	// The encoder writes what json.Marshal returns (HTML escaped alike) in one
	// Write, and a newline.
	var b strings.Builder
	if err := json.NewEncoder(&b).Encode(doc); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// jsonPreview fixes the key order of one preview in the JSON document.
type jsonPreview struct {
	Target   Target          `json:"target"`
	Scope    string          `json:"scope"`
	Identity string          `json:"meshIdentity,omitempty"`
	Policies []string        `json:"policies"`
	Hidden   int             `json:"policiesInOtherNamespaces,omitempty"`
	Items    []PreviewItem   `json:"items"`
	Form     Form            `json:"form"`
	RBAC     json.RawMessage `json:"rbac"`
	HTTPRBAC json.RawMessage `json:"httpRbac,omitempty"`
	Warnings []string        `json:"warnings,omitempty"`
	Findings []jsonFinding   `json:"findings,omitempty"`
}

// jsonFinding is one MG2xx finding of a preview.
type jsonFinding struct {
	Code    string `json:"code"`
	Policy  string `json:"policy"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// jsonDoc is the whole JSON document of MarshalJSON and MarshalJSONCompact.
type jsonDoc struct {
	Previews []jsonPreview `json:"previews"`
}

// newJSONDoc converts previews to the JSON document's types.
func newJSONDoc(previews []Preview) (jsonDoc, error) {
	doc := jsonDoc{Previews: make([]jsonPreview, 0, len(previews))}
	for _, p := range previews {
		jp := jsonPreview{Target: p.Target, Scope: p.Scope, Identity: p.Identity, Policies: p.Policies, Hidden: p.Hidden, Items: p.Items, Form: p.Form, Warnings: p.Warnings}
		if jp.Policies == nil {
			jp.Policies = []string{}
		}
		if jp.Items == nil {
			jp.Items = []PreviewItem{}
		}
		var err error
		if jp.RBAC, err = envoyJSON(p.RBAC); err != nil {
			return jsonDoc{}, fmt.Errorf("%s: rbac: %w", p.Scope, err)
		}
		if p.HTTPRBAC != nil {
			if jp.HTTPRBAC, err = envoyJSON(p.HTTPRBAC); err != nil {
				return jsonDoc{}, fmt.Errorf("%s: httpRbac: %w", p.Scope, err)
			}
		}
		for _, f := range p.Findings {
			jp.Findings = append(jp.Findings, jsonFinding{Code: f.Origin, Policy: fmt.Sprint(f.BadValue), Field: f.Field, Message: f.Detail})
		}
		doc.Previews = append(doc.Previews, jp)
	}
	return doc, nil
}

// envoyConfig is a go-control-plane message with its generated validation.
type envoyConfig interface {
	proto.Message
	Validate() error
}

// envoyJSON is m validated and written by protojson; a nil config is null.
// protojson varies its whitespace on purpose: the bytes are not compacted here
// because encoding/json compacts (and HTML-escapes) every json.RawMessage it
// writes, so the document of newJSONDoc comes out compact and stable anyway, and
// one pass over the RBAC's JSON per request is saved.
func envoyJSON[M envoyConfig](m M) (json.RawMessage, error) {
	if reflect.ValueOf(m).IsNil() {
		return json.RawMessage("null"), nil
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return protojson.Marshal(m)
}

// RenderJSON writes previews as one JSON object (`meshguard preview -o json`).
func RenderJSON(w io.Writer, previews []Preview) error {
	b, err := MarshalJSON(previews)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// RenderYAML writes the same document as YAML, converted from the JSON so that
// both outputs carry exactly the same data (`meshguard preview -o yaml`).
func RenderYAML(w io.Writer, previews []Preview) error {
	b, err := MarshalJSON(previews)
	if err != nil {
		return err
	}
	y, err := yaml.JSONToYAML(b)
	if err != nil {
		return err
	}
	_, err = w.Write(y)
	return err
}
