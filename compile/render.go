package compile

import (
	"bytes"
	"encoding/json"
	"io"

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
// the admission webhook's `rbac-preview` audit annotation. It runs on every
// admission request, so it is written by hand (previewEncoder) instead of going
// through encoding/json, with byte-identical output.
func MarshalJSONCompact(previews []Preview) ([]byte, error) {
	// A preview of a few policies is 1-2 KB of JSON (Kuma's MeshTrafficPermission MADR's are ~2 KB); the
	// guess saves most regrowth of the buffer protojson appends to.
	e := previewEncoder{b: make([]byte, 0, 512+2048*len(previews))}
	if err := e.appendPreviews(previews); err != nil {
		return nil, err
	}
	return e.b, nil
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
