package lint

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
)

const (
	// StdinName is the File of documents read from standard input ("-").
	StdinName = "<stdin>"
	// MaxDocumentBytes bounds one YAML/JSON document: the API server refuses objects
	// above ~1.5 MiB anyway, and the bound keeps a hostile file from costing minutes.
	MaxDocumentBytes = 3 << 20
	// MaxFileBytes bounds one input file or stdin, so memory stays bounded.
	MaxFileBytes = 64 << 20
	// MaxDepth bounds how deeply maps and lists may nest in a document; real
	// policies nest about ten levels.
	MaxDepth = 100
	// maxListDepth bounds List-in-List expansion.
	maxListDepth = 8
)

// Document is one object of the input with the position it came from, so every
// finding can name a file and a line. Exactly one of Object and Err is set.
type Document struct {
	// File is the path as given or found in a directory, or StdinName.
	File string
	// Index is the 0-based position of the document among those loaded from File
	// (List items and error documents count).
	Index int
	// Line is the 1-based line where the document (or List item) starts; 0 when the
	// whole file could not be read.
	Line int
	// Object is the parsed object; nil when it could not be parsed.
	Object *unstructured.Unstructured
	// Err says why the document could not be read or parsed; nil if fine.
	Err error
	// ErrLine is the 1-based line of the parse error when known, else 0.
	ErrLine int
	// Rendered is set on objects that come out of a kustomize build or a Helm
	// render: File, Line and LineOf then point into the source file (the origin
	// kustomize recorded, or the chart template), and Rendered into the output.
	// Nil for objects read from files as they are.
	Rendered *Rendering
	// Universal marks a Kuma Universal-format document (type:, name:, mesh:, as
	// kumactl apply takes it), read into Object as its Kubernetes form
	// (api.FromUniversal): it has no namespace, is judged as a Universal control
	// plane applies it, and its field paths are found under the keys it was written with.
	Universal bool

	lines lineIndex
	// shared holds the engine's answers on Object when another Document
	// shares it (a diff's two sides, LoadPair); nil otherwise.
	shared *judgement
	// skip says why the document is not linted at all (not a Kubernetes object);
	// assemble moves such documents into Loaded.Skipped.
	skip string
}

// lineIndex keeps the YAML node tree of a document for LineOf; node lines are
// relative to the chunk the node was parsed from, offset turns them absolute.
type lineIndex struct {
	node   *yaml.Node
	offset int
	// dropped marks a tree let go (LoadOptions.NoFieldLines); nameLine is then
	// LineOf("metadata.name") less offset.
	dropped  bool
	nameLine int
}

// nameField is the one field path whose line a document keeps without its node
// tree: where an object is defined, as notes about duplicates name it.
const nameField = "metadata.name"

// dropFieldLines lets d's node tree go, keeping the line of metadata.name.
func (d *Document) dropFieldLines() {
	if d.lines.node == nil {
		return
	}
	d.lines.nameLine = d.LineOf(nameField) - d.lines.offset
	d.lines.node, d.lines.dropped = nil, true
}

// loader collects the Documents of one chunk; File and Index are set when the
// chunks of a file are put back together (see assemble).
type loader struct {
	docs []Document
}

func (l *loader) add(d Document) {
	l.docs = append(l.docs, d)
}

func (l *loader) fail(line, errLine int, err error) {
	l.add(Document{Line: line, Err: err, ErrLine: errLine})
}

func (l *loader) skipDoc(line int, reason string) {
	l.add(Document{Line: line, skip: reason})
}

// parseChunk turns one chunk into Documents. A panic (a parser bug on hostile
// input) becomes an error Document instead of taking the whole run down.
func parseChunk(c chunk) (docs []Document) {
	l := &loader{}
	defer func() {
		if r := recover(); r != nil {
			start := max(c.contentLine(), c.line)
			docs = append(l.docs, Document{Line: start, ErrLine: start, Err: fmt.Errorf("internal error while parsing this document: %v", r)})
		}
	}()
	l.chunk(c)
	return l.docs
}

// chunk decodes one piece of the input between document markers. yaml.v3 cannot
// resume after a syntax error, so splitting first keeps one broken document from
// hiding the ones after it.
func (l *loader) chunk(c chunk) {
	start := c.contentLine()
	if start == 0 {
		return // only comments and blank lines
	}
	if len(c.data) > MaxDocumentBytes {
		l.fail(start, start, oversizeError(len(c.data)))
		return
	}
	offset := c.line - 1
	dec := yaml.NewDecoder(bytes.NewReader(c.data))
	for {
		var doc yaml.Node
		err := decodeSafely(dec, &doc)
		if err == io.EOF {
			return
		}
		if err != nil {
			line, msg := yamlErrorLine(err)
			if line == 0 {
				line = aliasLine(c.data, msg)
			}
			if line > 0 {
				line += offset
			} else {
				line = start
			}
			l.fail(start, line, fmt.Errorf("invalid YAML: %s", msg))
			return
		}
		if len(doc.Content) == 0 || isNull(doc.Content[0]) {
			continue
		}
		l.root(doc.Content[0], offset)
	}
}

// oversizeError says that a document of size bytes is past MaxDocumentBytes.
func oversizeError(size int) error {
	return fmt.Errorf("document is larger than %d MiB (%d bytes); split it", MaxDocumentBytes>>20, size)
}

func decodeSafely(dec *yaml.Decoder, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: parser failure: %v", r)
		}
	}()
	return dec.Decode(n)
}

// yamlErrorLine splits "yaml: line 7: did not find expected key" into a 1-based
// line and the message. yaml.v3 prints scanner errors with 1-based lines but
// parser errors with the 0-based line of the mark, so those get one added.
func yamlErrorLine(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		num, text, found := strings.Cut(rest, ": ")
		if n, convErr := strconv.Atoi(num); found && convErr == nil && n > 0 {
			if isParserError(text) {
				n++
			}
			return n, text
		}
	}
	return 0, msg
}

// aliasLine finds the line of the first use of the anchor an "unknown anchor 'x'
// referenced" error names, which yaml.v3 reports without a line; 0 if not found.
func aliasLine(data []byte, msg string) int {
	name, ok := strings.CutPrefix(msg, "unknown anchor '")
	if !ok {
		return 0
	}
	name, _, _ = strings.Cut(name, "' referenced")
	i := bytes.Index(data, []byte("*"+name))
	if i < 0 {
		return 0
	}
	return 1 + countLines(data[:i])
}

// isParserError recognises the problems yaml.v3's parser (not its scanner) reports;
// the list is the complete set of parser problems in go.yaml.in/yaml/v3 parserc.go.
func isParserError(problem string) bool {
	if rest, ok := strings.CutPrefix(problem, "did not find expected "); ok {
		switch rest {
		case "',' or ']'", "',' or '}'", "'-' indicator", "<document start>", "<stream-start>", "key", "node content":
			return true
		}
		return false
	}
	switch problem {
	case "found duplicate %TAG directive", "found duplicate %YAML directive", "found incompatible YAML document", "found undefined tag handle":
		return true
	}
	return false
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// root turns the top node of a YAML document into Documents: a mapping is one
// object (or a List of them), a sequence is a list of objects.
func (l *loader) root(n *yaml.Node, offset int) {
	n = deref(n)
	if n.Kind == yaml.SequenceNode {
		for _, item := range n.Content {
			l.object(item, offset, "list item", 1, true)
		}
		return
	}
	l.object(n, offset, "document", 0, true)
}

// object converts one mapping node into a Document, expanding kind List and
// kind XxxList with items into one Document per item. A top-level mapping (a
// document, or an item of a top-level sequence) with neither apiVersion nor kind
// is some other YAML (Helm values, a CI workflow) and is skipped; items of a
// kind List are meant to be objects, so there it stays an error.
func (l *loader) object(n *yaml.Node, offset int, what string, listDepth int, top bool) {
	line := n.Line + offset
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		l.fail(line, line, fmt.Errorf("%s is %s, not an object with apiVersion and kind", what, describe(n)))
		return
	}
	c := converter{offset: offset}
	v, err := c.value(n, 0)
	if err != nil {
		errLine := line
		var ce *convertError
		if errors.As(err, &ce) && ce.line > 0 {
			errLine = ce.line
		}
		l.fail(line, errLine, err)
		return
	}
	obj := v.(map[string]any)
	kind, _ := obj["kind"].(string)
	rawItems, hasItems := obj["items"]
	if kind == "List" || (strings.HasSuffix(kind, "List") && hasItems) {
		items, ok := rawItems.([]any)
		if !ok && rawItems != nil {
			l.fail(line, line, fmt.Errorf("%s: 'items' of a %s must be a list, not %T", what, kind, rawItems))
			return
		}
		if len(items) == 0 {
			return // an empty List, like an empty document
		}
		if listDepth >= maxListDepth {
			l.fail(line, line, fmt.Errorf("%s nests Lists more than %d levels deep", what, maxListDepth))
			return
		}
		_, seq := lookup(n, "items")
		seq = deref(seq)
		if seq == nil || seq.Kind != yaml.SequenceNode || len(seq.Content) != len(items) {
			l.fail(line, line, fmt.Errorf("%s: cannot locate the items of %s", what, kind))
			return
		}
		for _, item := range seq.Content {
			l.object(item, offset, "list item", listDepth+1, false)
		}
		return
	}
	if top && api.IsUniversal(obj) {
		l.universal(n, obj, line, offset)
		return
	}
	if top && notKubernetes(obj) {
		if l.universalList(n, obj, offset) {
			return
		}
		l.skipDoc(line, "not a Kubernetes object (no apiVersion and no kind)")
		return
	}
	if err := checkTypeMeta(obj, what); err != nil {
		l.fail(line, line, err)
		return
	}
	l.add(Document{Line: line, Object: &unstructured.Unstructured{Object: obj}, lines: lineIndex{node: n, offset: offset}})
}

// notKubernetes reports whether a mapping has neither apiVersion nor kind, the
// mark of YAML that is not a Kubernetes manifest at all. One without the other
// is a manifest with a mistake, which checkTypeMeta reports.
func notKubernetes(obj map[string]any) bool {
	_, hasAPIVersion := obj["apiVersion"]
	_, hasKind := obj["kind"]
	return !hasAPIVersion && !hasKind
}

// checkTypeMeta insists on apiVersion and kind: without them no registry lookup,
// no defaulting and no webhook would ever see the object.
func checkTypeMeta(obj map[string]any, what string) error {
	for _, key := range []string{"apiVersion", "kind"} {
		v, ok := obj[key]
		if !ok || v == nil {
			return fmt.Errorf("%s has no '%s'", what, key)
		}
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: '%s' must be a string, not %T", what, key, v)
		}
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("%s has an empty '%s'", what, key)
		}
	}
	return nil
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if isNull(n) {
			return "empty"
		}
		return "a scalar (" + strings.TrimPrefix(n.ShortTag(), "!!") + ")"
	}
	return "not a mapping"
}
