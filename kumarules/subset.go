package kumarules

import (
	"sort"
	"strings"
)

// Tag is one condition of a Subset: Key == Value, or Key != Value when Not.
type Tag struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	Not   bool   `json:"not,omitempty"`
}

// Subset is a group of proxies (clients for `from` rules, destinations for `to`
// rules) described by tag conditions, all of which hold; empty means every proxy.
type Subset []Tag

// subsetOf is the Subset a legacy targetRef selects, tags in key order. Kinds that
// cannot be written as tags are an error, as in Kuma.
func subsetOf(t TargetRef) (Subset, error) {
	var ss Subset
	switch t.Kind {
	case refMesh:
		return Subset{}, nil
	case refMeshSubset:
	case refMeshService:
		return Subset{{Key: serviceTag, Value: t.Name}}, nil
	case refMeshServiceSubset:
		ss = Subset{{Key: serviceTag, Value: t.Name}}
	default:
		return nil, &KindError{Kind: t.Kind}
	}
	for _, k := range sortedKeys(t.Tags) {
		ss = append(ss, Tag{Key: k, Value: t.Tags[k]})
	}
	return ss, nil
}

// KindError says a targetRef kind cannot take part in subset rules; Kuma fails the
// whole rule computation for the proxy in that case, and so does the engine.
type KindError struct{ Kind string }

func (e *KindError) Error() string {
	return "targetRef kind " + e.Kind + " cannot be represented as tags"
}

// NumPositive counts the tags without negation: rules are ordered by it, most first.
func (ss Subset) NumPositive() int {
	n := 0
	for _, t := range ss {
		if !t.Not {
			n++
		}
	}
	return n
}

// Includes reports whether every proxy of other is in ss: an item applies to a
// rule's subset when the item's subset includes it.
func (ss Subset) Includes(other Subset) bool {
	if len(ss) == 0 {
		return true
	}
	byKey := map[string][]Tag{}
	for _, t := range other {
		byKey[t.Key] = append(byKey[t.Key], t)
	}
	for _, t := range ss {
		os, ok := byKey[t.Key]
		if !ok {
			return false
		}
		for _, o := range os {
			if !tagIncludes(t, o) {
				return false
			}
		}
	}
	return true
}

// tagIncludes reports whether every proxy matching o (same key) matches t.
func tagIncludes(t, o Tag) bool {
	switch {
	case t.Not == o.Not:
		return t.Value == o.Value
	case t.Not: // k != a includes k == b when a != b
		return t.Value != o.Value
	}
	return false // k == a never includes k != b
}

// Intersects reports whether some proxy can be in both subsets: only two positive
// tags of one key with different values exclude each other.
func (ss Subset) Intersects(other Subset) bool {
	if len(ss) == 0 || len(other) == 0 {
		return true
	}
	pos := map[string][]Tag{}
	for _, t := range other {
		if !t.Not {
			pos[t.Key] = append(pos[t.Key], t)
		}
	}
	for _, t := range ss {
		if t.Not {
			continue
		}
		for _, o := range pos[t.Key] {
			if o != t {
				return false
			}
		}
	}
	return true
}

// ContainsElement reports whether a proxy with the given tags is in ss, the way
// Kuma picks the rule for a client or destination: tags the proxy lacks only
// matter when positive.
func (ss Subset) ContainsElement(tags map[string]string) bool {
	if len(ss) == 0 {
		return true
	}
	if len(tags) == 0 {
		return false
	}
	overlap := false
	for _, t := range ss {
		v, ok := tags[t.Key]
		if !ok {
			if !t.Not {
				return false
			}
			continue
		}
		overlap = true
		if (v == t.Value) == t.Not {
			return false
		}
	}
	return overlap || ss.NumPositive() == 0
}

// canonical is a key equal for subsets with the same tags in any order.
func (ss Subset) canonical() string {
	c := append(Subset(nil), ss...)
	sort.SliceStable(c, func(i, j int) bool {
		if c[i].Key != c[j].Key {
			return c[i].Key < c[j].Key
		}
		if c[i].Value != c[j].Value {
			return c[i].Value < c[j].Value
		}
		return !c[i].Not && c[j].Not
	})
	var b strings.Builder
	for _, t := range c {
		b.WriteString(t.Key + "\x00" + t.Value)
		if t.Not {
			b.WriteString("\x00!")
		}
		b.WriteByte('\x01')
	}
	return b.String()
}

// partition lists, for sorted tags, every combination that picks for each key one
// of its values or "none of them", in the order Kuma's iterator yields them (the
// first key varies fastest, the all-positive combination comes last). Each
// combination is one candidate rule subset.
func partition(tags []Tag) []Subset {
	type dim struct {
		key  string
		vals []string
	}
	var dims []dim
	at := map[string]int{}
	seen := map[[2]string]bool{}
	for _, t := range tags {
		i, ok := at[t.Key]
		if !ok {
			i = len(dims)
			at[t.Key] = i
			dims = append(dims, dim{key: t.Key})
		}
		if !seen[[2]string{t.Key, t.Value}] {
			seen[[2]string{t.Key, t.Value}] = true
			dims[i].vals = append(dims[i].vals, t.Value)
		}
	}
	idx := make([]int, len(dims))
	current := func() Subset {
		out := Subset{}
		for i, d := range dims {
			if idx[i] == len(d.vals) {
				for _, v := range d.vals {
					out = append(out, Tag{Key: d.key, Value: v, Not: true})
				}
				continue
			}
			out = append(out, Tag{Key: d.key, Value: d.vals[len(d.vals)-idx[i]-1]})
		}
		return out
	}
	var out []Subset
	for {
		advanced := false
		for i := range idx {
			idx[i]++
			if idx[i] <= len(dims[i].vals) {
				advanced = true
				break
			}
			idx[i] = 0
		}
		out = append(out, current())
		if !advanced {
			return out
		}
	}
}
