package schema

import (
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// FieldsAt lists the fields the schema of gvk allows in the object at path (a field
// path as pruning reports it, "spec.to[0].default"), sorted; nil when the path leaves
// the schema. It lets a door suggest the field a user meant when the API server would
// drop a key.
func (s *Set) FieldsAt(gvk schema.GroupVersionKind, path string) []string {
	c := s.lookup(gvk)
	if c == nil {
		return nil
	}
	st := c.structural
	for _, step := range pathSteps(path) {
		switch {
		case st == nil:
			return nil
		case step == "[]" && st.Items != nil:
			st = st.Items
		case step == "[]" || st.Properties == nil:
			if st.AdditionalProperties == nil {
				return nil
			}
			st = st.AdditionalProperties.Structural
		default:
			p, ok := st.Properties[step]
			if !ok {
				return nil
			}
			st = &p
		}
	}
	if st == nil || len(st.Properties) == 0 {
		return nil
	}
	out := make([]string, 0, len(st.Properties))
	for k := range st.Properties {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// pathSteps splits "spec.to[0].default" into "spec", "to", "[]", "default"; a map
// key ("tags[kuma.io/service]") is a "[]" step too.
func pathSteps(p string) []string {
	var out []string
	for p != "" {
		i := strings.IndexAny(p, ".[")
		switch {
		case i < 0:
			return append(out, p)
		case p[i] == '.':
			if i > 0 {
				out = append(out, p[:i])
			}
			p = p[i+1:]
		default:
			if i > 0 {
				out = append(out, p[:i])
			}
			end := strings.IndexByte(p[i:], ']')
			if end < 0 {
				return append(out, "[]")
			}
			out = append(out, "[]")
			p = strings.TrimPrefix(p[i+end+1:], ".")
		}
	}
	return out
}
