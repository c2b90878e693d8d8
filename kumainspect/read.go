package kumainspect

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
)

// Decode reads a stream of YAML (or JSON) documents as Kuma's store would take
// them: Universal-format documents (`type:`, `name:`, `mesh:`) as `kumactl apply`
// reads them, and Kubernetes manifests. Documents are split at `---` lines as
// kumactl splits them, and a Universal document is trimmed of surrounding
// whitespace as kumactl trims it (so a block scalar that ends the document loses
// its final newline, as it does in Kuma's store); a manifest keeps it, as kubectl
// keeps it. Documents that are neither (no `type`, no `kind`) and empty ones are
// skipped. A repeated key in a mapping takes its last value. name says where the
// stream comes from in errors.
func Decode(r io.Reader, name string, reg *api.Registry) ([]Object, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var out []Object
	for i, piece := range splitDocuments(string(data)) {
		doc, err := decodeOne(piece)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", name, i+1, err)
		}
		switch {
		case doc == nil:
		case api.IsUniversal(doc):
			u, ferr := api.FromUniversal(doc, reg)
			if ferr != nil {
				return nil, fmt.Errorf("%s: document %d: %s", name, i+1, ferr.Error())
			}
			if st, ok := doc["status"]; ok && doc["spec"] != nil {
				u.Object["status"] = st // a new-style resource's status sits beside its spec
			}
			out = append(out, Object{Unstructured: u, Universal: true})
		case doc["apiVersion"] != nil && doc["kind"] != nil:
			if doc, err = decodeOne(piece + "\n"); err != nil {
				return nil, fmt.Errorf("%s: document %d: %w", name, i+1, err)
			}
			out = append(out, manifests(doc)...)
		}
	}
	return out, nil
}

// manifests are a Kubernetes document's objects: the items of a List (what
// `kubectl get -o yaml` writes), else the document itself.
func manifests(doc map[string]any) []Object {
	items, isList := doc["items"].([]any)
	if kind, _ := doc["kind"].(string); !isList || !strings.HasSuffix(kind, "List") {
		return []Object{{Unstructured: &unstructured.Unstructured{Object: doc}}}
	}
	var out []Object
	for _, it := range items {
		if m, ok := it.(map[string]any); ok && m["apiVersion"] != nil && m["kind"] != nil {
			out = append(out, Object{Unstructured: &unstructured.Unstructured{Object: m}})
		}
	}
	return out
}

// splitDocuments splits a stream at its `---` lines, each document trimmed, as
// kumactl (pkg/util/yaml.SplitYAML) finds documents in a stream.
func splitDocuments(stream string) []string {
	documentSeparator := regexp.MustCompile("(?:^|\\s*\n)---\\s*")
	wholeComment := regexp.MustCompile("^#.*$")
	var out []string
	for _, doc := range documentSeparator.Split(strings.TrimSpace(stream), -1) {
		doc = wholeComment.ReplaceAllString(doc, "")
		if doc = strings.TrimSpace(doc); doc != "" {
			out = append(out, doc)
		}
	}
	return out
}

// decodeOne decodes one YAML document into JSON-shaped values; nil when it holds
// no mapping.
func decodeOne(text string) (map[string]any, error) {
	var node yaml.Node
	if err := yaml.Unmarshal([]byte(text), &node); err != nil {
		return nil, err
	}
	v, err := (&converter{}).value(&node, 0)
	if err != nil {
		return nil, err
	}
	doc, _ := v.(map[string]any)
	return doc, nil
}

// maxDepth bounds the nesting Decode follows, and maxNodes the values one
// document may expand to (aliases included), so a hostile document can neither
// exhaust the stack nor make a billion values out of a few lines.
const (
	maxDepth = 1000
	maxNodes = 1 << 20
)

// converter turns YAML nodes into JSON-shaped values, counting what it builds.
type converter struct{ nodes int }

// value converts a YAML node to JSON-shaped values (maps with string keys,
// slices, scalars), a repeated mapping key keeping its last value.
func (c *converter) value(n *yaml.Node, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("nested too deeply")
	}
	if c.nodes++; c.nodes > maxNodes {
		return nil, fmt.Errorf("more than %d values once aliases are expanded", maxNodes)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0], depth+1)
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := c.value(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, e := range n.Content {
			v, err := c.value(e, depth+1)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return l, nil
	case yaml.AliasNode:
		return c.value(n.Alias, depth+1)
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}
