package lint

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"
)

const (
	// maxValues bounds the values built for one document (a 3 MiB document holds
	// at most about 1.5 million nodes).
	maxValues = 2_000_000
	// maxAliasValues bounds the values built by expanding aliases: a handful of
	// anchors in a policy expands to hundreds of values, an alias bomb to billions.
	maxAliasValues = 100_000
)

// convertError is a conversion problem at a known line of the file.
type convertError struct {
	line int
	msg  string
}

func (e *convertError) Error() string { return e.msg }

// converter turns a yaml.v3 node tree into the JSON-compatible values that
// unstructured.Unstructured holds (map[string]any, []any, string, bool, int64,
// float64, nil), as the API server would see the object after kubectl's
// YAML-to-JSON step. It works on nodes rather than letting yaml.v3 decode into
// interfaces so that timestamps stay strings and keys become strings, and it
// bounds depth and alias expansion itself because node trees are not expanded by
// yaml.v3's own alias guard. Plain scalars are read as kubectl, Helm and the API
// server read them (sigs.k8s.io/yaml, YAML 1.1): an unquoted yes, on, no or off is
// a boolean there, though yaml.v3 (YAML 1.2) keeps it a string.
type converter struct {
	offset      int
	values      int
	aliasValues int
	aliasDepth  int
}

func (c *converter) errorf(n *yaml.Node, format string, args ...any) error {
	return &convertError{line: n.Line + c.offset, msg: fmt.Sprintf(format, args...)}
}

func (c *converter) value(n *yaml.Node, depth int) (any, error) {
	if depth > MaxDepth {
		return nil, c.errorf(n, "document nests deeper than %d levels", MaxDepth)
	}
	c.values++
	if c.aliasDepth > 0 {
		c.aliasValues++
	}
	if c.values > maxValues {
		return nil, c.errorf(n, "document has more than %d values", maxValues)
	}
	if c.aliasValues > maxAliasValues {
		return nil, c.errorf(n, "document contains excessive aliasing (more than %d values from aliases)", maxAliasValues)
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, c.errorf(n, "unknown anchor %q", n.Value)
		}
		c.aliasDepth++
		v, err := c.value(n.Alias, depth)
		c.aliasDepth--
		return v, err
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0], depth)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, item := range n.Content {
			v, err := c.value(item, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		return c.mapping(n, depth)
	case yaml.ScalarNode:
		return c.scalar(n)
	}
	return nil, c.errorf(n, "unsupported YAML node")
}

// mapping converts a mapping; explicit keys win over merged ("<<") ones, and
// earlier merge sources win over later ones, as in yaml.v3 and YAML 1.1.
func (c *converter) mapping(n *yaml.Node, depth int) (map[string]any, error) {
	out := make(map[string]any, len(n.Content)/2)
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if isMergeKey(kn) {
			merges = append(merges, vn)
			continue
		}
		key, err := c.key(kn)
		if err != nil {
			return nil, err
		}
		if _, dup := out[key]; dup {
			return nil, c.errorf(kn, "mapping key %q is defined twice", key)
		}
		v, err := c.value(vn, depth+1)
		if err != nil {
			return nil, err
		}
		out[key] = v
	}
	for _, m := range merges {
		sources := []*yaml.Node{m}
		if d := deref(m); d.Kind == yaml.SequenceNode {
			sources = d.Content
		}
		for _, src := range sources {
			v, err := c.value(src, depth)
			if err != nil {
				return nil, err
			}
			mv, ok := v.(map[string]any)
			if !ok {
				return nil, c.errorf(src, "map merge (<<) needs a mapping or a list of mappings")
			}
			for k, val := range mv {
				if _, exists := out[k]; !exists {
					out[k] = val
				}
			}
		}
	}
	return out, nil
}

// keyShape names what a non-scalar mapping key is, with its article, for the
// error that refuses it.
func keyShape(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	return "not a scalar"
}

// key turns a mapping key into a string the way kubectl's YAML-to-JSON step does:
// 1 → "1", true → "true", ~ → "null". Lists and maps cannot be JSON keys.
func (c *converter) key(n *yaml.Node) (string, error) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode {
		return "", c.errorf(n, "a mapping key is %s; keys must be scalars (a string, number or boolean)", keyShape(n))
	}
	if b, ok := yaml11Bool(n); ok {
		return strconv.FormatBool(b), nil
	}
	if n.ShortTag() == "!!str" {
		return n.Value, nil
	}
	v, err := c.scalar(n)
	if err != nil {
		return "", err
	}
	return keyString(v), nil
}

func keyString(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	return fmt.Sprint(v)
}

// scalar resolves a scalar by its (explicit or implicit) YAML tag. Timestamps and
// binaries stay the text as written; numbers become int64 or float64.
func (c *converter) scalar(n *yaml.Node) (any, error) {
	if b, ok := yaml11Bool(n); ok {
		return b, nil
	}
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool", "!!int", "!!float":
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, c.errorf(n, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
		}
		return c.number(n, v)
	}
	return n.Value, nil
}

func (c *converter) number(n *yaml.Node, v any) (any, error) {
	switch v := v.(type) {
	case bool:
		return v, nil
	case int:
		return int64(v), nil
	case int64:
		return v, nil
	case uint64:
		if v <= math.MaxInt64 {
			return int64(v), nil
		}
		return float64(v), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, c.errorf(n, "%q is not a number JSON can hold; quote it if it is a string", n.Value)
		}
		return v, nil
	case nil:
		return nil, nil
	}
	return nil, c.errorf(n, "cannot convert %q (%T)", n.Value, v)
}

// yaml11Bool reads a plain scalar that YAML 1.1 resolves to a boolean and
// yaml.v3 to a string (y, yes, on, n, no, off in their three cases), with the
// decoder kubectl uses, so that meshguard checks the value the cluster will be
// sent: `enabled: on` arrives as true, `labels: {a: yes}` is refused by the API
// server. Quoted or explicitly tagged scalars stay strings, as they do there.
// Only the few words short enough to be one of these reach the decoder.
func yaml11Bool(n *yaml.Node) (bool, bool) {
	if n.Style != 0 || len(n.Value) == 0 || len(n.Value) > 3 || n.ShortTag() != "!!str" {
		return false, false
	}
	switch n.Value[0] {
	case 'y', 'Y', 'n', 'N', 'o', 'O':
	default:
		return false, false
	}
	var v any
	if err := sigsyaml.Unmarshal([]byte(n.Value), &v); err != nil {
		return false, false
	}
	b, ok := v.(bool)
	return b, ok
}

// yaml11Hint is the sentence a finding at fieldPath gets when the value there is
// an unquoted word that kubectl sends as a boolean, which is seldom what its
// author meant: the finding's "must be of type string" alone would not say why.
func yaml11Hint(d *Document, fieldPath string) string {
	if fieldPath == "" {
		return ""
	}
	n := deref(d.valueAt(fieldPath))
	if n == nil {
		return ""
	}
	b, ok := yaml11Bool(n)
	if !ok {
		return ""
	}
	return fmt.Sprintf(" (the unquoted %s is the boolean %t for kubectl and Helm, which read YAML 1.1; quote it to send the string)", n.Value, b)
}

func isMergeKey(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Value == "<<" && n.ShortTag() == "!!merge"
}

// deref follows aliases to the node they name (bounded, in case of a cycle).
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < MaxDepth; i++ {
		n = n.Alias
	}
	return n
}
