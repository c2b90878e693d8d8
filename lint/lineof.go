package lint

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// LineOf maps a Kubernetes field path, as k8s.io/apimachinery's field.Path prints
// it (spec.to[1].targetRef.namespace, metadata.labels[kuma.io/mesh]), to the
// line of that node in the source, so findings point where the user must edit.
// When the node does not exist (a missing required field) it returns the line of
// the nearest ancestor that does; an empty path gives the document's line.
func (d *Document) LineOf(fieldPath string) int {
	line, _ := d.lineOf(fieldPath)
	return line
}

// lineOf is LineOf that also says whether the whole path was found.
func (d *Document) lineOf(fieldPath string) (line int, exact bool) {
	line, value := d.walk(fieldPath)
	return line, value != nil
}

// valueAt is the node of fieldPath's value, or nil when the path is not in the
// document as written.
func (d *Document) valueAt(fieldPath string) *yaml.Node {
	_, value := d.walk(fieldPath)
	return value
}

// walk follows fieldPath through the node tree: the line of the deepest node
// found, and the value node of the whole path (nil when some step is missing).
func (d *Document) walk(fieldPath string) (line int, value *yaml.Node) {
	n := d.lines.node
	if d.lines.dropped && fieldPath == nameField {
		return d.lines.nameLine + d.lines.offset, nil
	}
	if d.Universal && n != nil {
		fieldPath = universalPath(n, fieldPath)
	}
	if n == nil || fieldPath == "" {
		return d.Line, n
	}
	line = d.Line
	for _, s := range parsePath(fieldPath) {
		n = deref(n)
		var at, next *yaml.Node
		switch {
		case n.Kind == yaml.SequenceNode && s.isIndex:
			if s.index < len(n.Content) {
				at = n.Content[s.index]
				next = at
			}
		case n.Kind == yaml.MappingNode:
			at, next = lookup(n, s.key)
		}
		if at == nil {
			return line, nil
		}
		line = at.Line + d.lines.offset
		n = next
	}
	return line, n
}

// pathSegment is a ".name" or "[key]" / "[3]" step of a field path.
type pathSegment struct {
	key     string
	index   int
	isIndex bool
}

// parsePath splits a field path into segments. Keys in brackets may contain dots
// and slashes (labels[kuma.io/mesh]); a "]" ends a key only where a "." or "[" or
// the end of the path follows, so keys holding "]" survive too.
func parsePath(p string) []pathSegment {
	var out []pathSegment
	for i := 0; i < len(p); {
		switch p[i] {
		case '.':
			i++
		case '[':
			end := closingBracket(p, i+1)
			key := p[i+1 : end]
			seg := pathSegment{key: key}
			if n, err := strconv.Atoi(key); err == nil && n >= 0 && !strings.HasPrefix(key, "+") {
				seg.index, seg.isIndex = n, true
			}
			out = append(out, seg)
			i = end + 1
		default:
			end := i
			for end < len(p) && p[end] != '.' && p[end] != '[' {
				end++
			}
			out = append(out, pathSegment{key: p[i:end]})
			i = end
		}
	}
	return out
}

// closingBracket returns the index of the "]" that closes a bracket opened before
// from, or len(p) when there is none.
func closingBracket(p string, from int) int {
	first := -1
	for j := from; j < len(p); j++ {
		if p[j] != ']' {
			continue
		}
		if first < 0 {
			first = j
		}
		if j+1 == len(p) || p[j+1] == '.' || p[j+1] == '[' {
			return j
		}
	}
	if first >= 0 {
		return first
	}
	return len(p)
}

// maxLookupVisits bounds the mappings one lookup searches through merge keys, so
// chains of "<<" over aliases cannot make a lookup exponential.
const maxLookupVisits = 10_000

// lookup finds key in a mapping node and returns the key node (whose line is the
// field's line) and the value node. Explicit keys win over merged ("<<") ones.
func lookup(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	visits := 0
	return lookupIn(m, key, 0, &visits)
}

func lookupIn(m *yaml.Node, key string, depth int, visits *int) (*yaml.Node, *yaml.Node) {
	m = deref(m)
	*visits++
	if m == nil || m.Kind != yaml.MappingNode || depth > MaxDepth || *visits > maxLookupVisits {
		return nil, nil
	}
	var merges []*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		kn := m.Content[i]
		if isMergeKey(kn) {
			merges = append(merges, m.Content[i+1])
			continue
		}
		if keyText(kn) == key {
			return kn, m.Content[i+1]
		}
	}
	for _, mv := range merges {
		sources := []*yaml.Node{mv}
		if d := deref(mv); d != nil && d.Kind == yaml.SequenceNode {
			sources = d.Content
		}
		for _, src := range sources {
			if k, v := lookupIn(src, key, depth+1, visits); k != nil {
				return k, v
			}
		}
	}
	return nil, nil
}

// keyText is the string a key node converts to (converter.key), or the text as
// written when it converts to none.
func keyText(n *yaml.Node) string {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	if k, err := (&converter{}).key(n); err == nil {
		return k
	}
	return n.Value
}
