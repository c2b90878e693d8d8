package kumainspect

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
)

// Decode reads a stream of YAML (or JSON) documents as Kuma's store would take
// them: Universal-format documents (`type:`, `name:`, `mesh:`, as `kumactl apply`
// takes them) and Kubernetes manifests. Documents that are neither (no `type`, no
// `kind`) and empty ones are skipped. A repeated key in a mapping takes its last
// value, as the YAML reader of Kuma's own tests does. name says where the stream
// comes from in errors.
func Decode(r io.Reader, name string, reg *api.Registry) ([]Object, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []Object
	for i := 0; ; i++ {
		var node yaml.Node
		if err := dec.Decode(&node); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		v, err := nodeValue(&node, 0)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", name, i+1, err)
		}
		doc, _ := v.(map[string]any)
		switch {
		case doc == nil:
		case api.IsUniversal(doc):
			u, ferr := api.FromUniversal(doc, reg)
			if ferr != nil {
				return nil, fmt.Errorf("%s: document %d: %s", name, i+1, ferr.Error())
			}
			out = append(out, Object{Unstructured: u, Universal: true})
		case doc["apiVersion"] != nil && doc["kind"] != nil:
			out = append(out, Object{Unstructured: &unstructured.Unstructured{Object: doc}})
		}
	}
}

// maxDepth bounds the nesting Decode follows, so a hostile document cannot
// exhaust the stack.
const maxDepth = 1000

// nodeValue converts a YAML node to JSON-shaped values (maps with string keys,
// slices, scalars), a repeated mapping key keeping its last value.
func nodeValue(n *yaml.Node, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("nested too deeply")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return nodeValue(n.Content[0], depth+1)
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := nodeValue(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := nodeValue(c, depth+1)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return l, nil
	case yaml.AliasNode:
		return nodeValue(n.Alias, depth+1)
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}
