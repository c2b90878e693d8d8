package defaults

import (
	"maps"
	"slices"
)

// Change is one value ApplyChanges wrote into the object: Path is the member's
// location from the object's root (object keys and list indexes, unescaped) and
// Value what is there now. Apply only ever sets object members (a label, a
// targetRef, a namespace); it never removes anything or inserts list elements, so
// every change is a JSON-patch "add" of Value at Path.
type Change struct {
	Path  []string
	Value any
}

// recorder collects the changes of one ApplyChanges call.
type recorder struct{ changes []Change }

func (r *recorder) add(v any, path ...string) {
	r.changes = append(r.changes, Change{Path: slices.Clone(path), Value: v})
}

// labels records the labels Apply set or changed: the whole map when the object
// had none (absent or null), otherwise each key whose value is new, in key order.
func (r *recorder) labels(absent bool, before, after map[string]string, written map[string]any) {
	if absent {
		if len(written) > 0 {
			r.add(written, "metadata", "labels")
		}
		return
	}
	for _, k := range slices.Sorted(maps.Keys(after)) {
		if old, ok := before[k]; !ok || old != after[k] {
			r.add(after[k], "metadata", "labels", k)
		}
	}
}
