package lint

import (
	"fmt"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/meshguard/meshguard/api"
)

// universal adds a Kuma Universal-format document (type:, name:, mesh:) as the
// object the Kubernetes path produces, so that every door judges it by the same
// rules; a document Kuma could not read (no name, labels that are not strings)
// is an error naming the field.
func (l *loader) universal(n *yaml.Node, obj map[string]any, line, offset int) {
	u, ferr := api.FromUniversal(obj, universalRegistry())
	if ferr != nil {
		d := Document{Line: line, lines: lineIndex{node: n, offset: offset}, Universal: true}
		l.fail(line, d.LineOf(ferr.Field), fmt.Errorf("Universal document: %s", ferr.Error()))
		return
	}
	l.add(Document{Line: line, Object: u, Universal: true, lines: lineIndex{node: n, offset: offset}})
}

// universalRegistry reads Universal documents' kinds: built once, as a
// registry is never changed (a loader is made per document).
var universalRegistry = sync.OnceValue(api.DefaultRegistry)

// universalList expands what `kumactl get <kind> -o yaml` writes, a mapping of
// Universal documents under items (with total and next), into one document per
// item; it reports false for any other mapping.
func (l *loader) universalList(n *yaml.Node, obj map[string]any, offset int) bool {
	items, ok := obj["items"].([]any)
	if !ok || len(items) == 0 {
		return false
	}
	for _, it := range items {
		m, isMap := it.(map[string]any)
		if !isMap || !api.IsUniversal(m) {
			return false
		}
	}
	_, seq := lookup(n, "items")
	seq = deref(seq)
	if seq == nil || seq.Kind != yaml.SequenceNode || len(seq.Content) != len(items) {
		return false
	}
	for i, item := range seq.Content {
		l.universal(deref(item), items[i].(map[string]any), item.Line+offset, offset)
	}
	return true
}

// universalPath is where a field path of the Kubernetes form is written in a
// Universal document: metadata.name and metadata.labels at the top level, the
// kuma.io/mesh label as mesh, and spec.x at the top level for the kinds that have
// no spec key (Mesh, Dataplane and the other older resources).
func universalPath(doc *yaml.Node, p string) string {
	const labels = "metadata.labels"
	switch {
	case p == "metadata.labels["+api.LabelMesh+"]" || p == labels+"."+api.LabelMesh:
		return "mesh"
	case strings.HasPrefix(p, labels):
		return "labels" + strings.TrimPrefix(p, labels)
	case p == "metadata.name":
		return "name"
	case p == "metadata" || strings.HasPrefix(p, "metadata."):
		return ""
	case p == "spec" || strings.HasPrefix(p, "spec.") || strings.HasPrefix(p, "spec["):
		if at, _ := lookup(deref(doc), "spec"); at != nil {
			return p
		}
		return strings.TrimPrefix(strings.TrimPrefix(p, "spec"), ".")
	}
	return p
}
