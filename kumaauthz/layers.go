package kumaauthz

import (
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/meshguard/meshguard/api"
)

// The cross-document analysis of `meshguard lint` (AnalyzePolicies) must not cost
// the square of the policies that select the same proxies. A group's merged list
// is cut into layers: the policies that target the whole mesh (kind rank 0) come
// first in every group's order, and depend only on the group's mesh, namespace and
// zone, so they form a handful of layers shared by many groups; the policies of
// any other target apply to the same groups, so each target is a layer too, and a
// group finds the targets its selector contains through an index of selectors
// instead of by testing every policy. Every layer is built once and indexes its
// `from` items by their set of atoms, so
// "which later item covers this one" is a few map lookups (the subsets of the
// item's atoms) instead of a scan of the list.

// maxSubsetAtoms bounds the atoms (or selector entries) whose subsets are
// enumerated; past it the answer comes from a scan, as before the index.
const maxSubsetAtoms = 10

// aItem is one `from` item of a policy, ready for the layered analysis.
type aItem struct {
	rank   int64 // the policy's position in merge order << 32 | the item's index
	atoms  []atom
	action Action
	// scan is true when the item's atoms exclude each other or are too many to
	// enumerate: such an item is checked by scanning, with the list semantics.
	scan bool
}

// aPolicy is a policy with everything the analysis derives from it once.
type aPolicy struct {
	ord   int // position in the global merge order
	in    int // position in the input
	t     Target
	key   string
	ref   string
	items []aItem
	bad   bool // an action that does not parse
	rules bool // uses SPIFFE matchers
	sel   []selEntry
}

// selEntry is one entry of a target's selector (see selectorGet).
type selEntry struct{ k, v string }

// selectorEntries lists t.selector() sorted by key: selectorContains(g, pt) holds
// exactly when pt's entries are a subset of g's.
func selectorEntries(t Target) []selEntry {
	var out []selEntry
	switch t.Kind {
	case api.RefMeshService:
		out = append(out, selEntry{api.ServiceTag, t.Name})
	case api.RefMeshServiceSubset:
		for k, v := range t.Tags {
			if k != api.ServiceTag {
				out = append(out, selEntry{k, v})
			}
		}
		out = append(out, selEntry{api.ServiceTag, t.Name})
	case api.RefMeshSubset:
		for k, v := range t.Tags {
			out = append(out, selEntry{k, v})
		}
	case api.RefDataplane:
		for k, v := range t.Tags {
			if (k == selDataplane && t.Name != "") || (k == selSection && t.SectionName != "") {
				continue
			}
			out = append(out, selEntry{k, v})
		}
		if t.Name != "" {
			out = append(out, selEntry{selDataplane, t.Name})
		}
		if t.SectionName != "" {
			out = append(out, selEntry{selSection, t.SectionName})
		}
	}
	slices.SortFunc(out, func(a, b selEntry) int { return cmp.Compare(a.k, b.k) })
	return out
}

// appendStr appends a length-prefixed string, so keys never collide.
func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func selKey(b []byte, mesh, ns string, es []selEntry) []byte {
	b = appendStr(appendStr(b, mesh), ns)
	for _, e := range es {
		b = appendStr(appendStr(b, e.k), e.v)
	}
	return b
}

// atomSetKey encodes a set of atoms sorted by compareAtoms.
func atomSetKey(b []byte, as []atom) []byte {
	for _, a := range as {
		b = append(b, byte(a.kind))
		b = appendStr(appendStr(b, a.key), a.value)
	}
	return b
}

func compareAtoms(a, b atom) int {
	return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.key, b.key), cmp.Compare(a.value, b.value))
}

// closure is every atom implied by the item's atoms: its own, plus "in mesh K"
// for its service in mesh K. covers(o, x) holds exactly when o's atoms are a
// subset of closure(x).
func closure(as []atom) []atom {
	out := slices.Clone(as)
	for _, a := range as {
		if a.kind == atomService {
			m := atom{kind: atomMesh, key: a.key}
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	slices.SortFunc(out, compareAtoms)
	return out
}

// selfCompatible reports whether some client can match every atom of the item,
// where covering is the same as overlapping and covering.
func selfCompatible(as []atom) bool {
	for i := range as {
		for j := i + 1; j < len(as); j++ {
			if !compatible(as[i], as[j]) {
				return false
			}
		}
	}
	return true
}

// layer is a list of policies in merge order with its items indexed.
type layer struct {
	pols  []*aPolicy
	items []*aItem
	// all and deny map an atom set to the highest rank of an item (a deny item)
	// with exactly those atoms.
	all, deny map[string]int64
	// alive are the allow items no later deny item of this layer covers.
	alive []*aItem
	// emptyDeny is the highest rank of a deny item without atoms (it covers every
	// client), -1 if none.
	emptyDeny  int64
	bad, rules bool
	// rulesPols are the policies that use SPIFFE matchers.
	rulesPols []*aPolicy
}

func newLayer(pols []*aPolicy) *layer {
	l := &layer{pols: pols, all: map[string]int64{}, deny: map[string]int64{}, emptyDeny: -1}
	var buf []byte
	for _, p := range pols {
		l.bad = l.bad || p.bad
		if p.rules {
			l.rules = true
			l.rulesPols = append(l.rulesPols, p)
		}
		for k := range p.items {
			it := &p.items[k]
			l.items = append(l.items, it)
			buf = atomSetKey(buf[:0], it.atoms)
			l.all[string(buf)] = it.rank // ranks ascend: the last is the highest
			if !it.action.Allows() {
				l.deny[string(buf)] = it.rank
				if len(it.atoms) == 0 {
					l.emptyDeny = it.rank
				}
			}
		}
	}
	for _, it := range l.items {
		if it.action.Allows() && !l.coveredAfter(it, true) {
			l.alive = append(l.alive, it)
		}
	}
	return l
}

// coverMax is the highest rank above x's of an item (a deny item when denyOnly)
// of the layer that covers x, or -1. For deny items it also insists on overlap,
// as allowsAnyone does; the two agree unless x's own atoms exclude each other.
func (l *layer) coverMax(x *aItem, denyOnly bool) int64 {
	if x.scan {
		for i := len(l.items) - 1; i >= 0 && l.items[i].rank > x.rank; i-- {
			o := l.items[i]
			if denyOnly && (o.action.Allows() || !overlaps(cItem{atoms: x.atoms}, cItem{atoms: o.atoms})) {
				continue
			}
			if covers(cItem{atoms: o.atoms}, cItem{atoms: x.atoms}) {
				return o.rank
			}
		}
		return -1
	}
	idx := l.all
	if denyOnly {
		idx = l.deny
	}
	best := int64(-1)
	cl := closure(x.atoms)
	var buf []byte
	var sub []atom
	for mask := 0; mask < 1<<len(cl); mask++ {
		sub = sub[:0]
		for i, a := range cl {
			if mask&(1<<i) != 0 {
				sub = append(sub, a)
			}
		}
		buf = atomSetKey(buf[:0], sub)
		if r, ok := idx[string(buf)]; ok && r > x.rank && r > best {
			best = r
		}
	}
	return best
}

func (l *layer) coveredAfter(x *aItem, denyOnly bool) bool {
	if denyOnly && l.emptyDeny > x.rank {
		return true
	}
	return l.coverMax(x, denyOnly) >= 0
}
