package classes

import (
	"slices"
	"strings"
)

// StrPred is a condition on one string dimension: equal to Value, or starting
// with it.
type StrPred struct {
	Prefix bool
	Value  string
}

// Holds reports whether s meets the condition.
func (p StrPred) Holds(s string) bool {
	if p.Prefix {
		return strings.HasPrefix(s, p.Value)
	}
	return s == p.Value
}

// The kinds of StrClass.
const (
	StrExact  = "exact"
	StrPrefix = "prefix"
	StrOther  = "other"
)

// StrClass is a class of a string dimension: one named value (StrExact), the
// strings whose longest named prefix is Value and that are no named value
// (StrPrefix), or the strings that meet no condition (StrOther). Witness is a
// member; a class without one is left out.
type StrClass struct {
	Kind    string
	Value   string
	Witness string
}

// StrClasses builds the classes of one string dimension from its conditions:
// every string is in exactly one class, and all strings of a class meet the same
// conditions.
func StrClasses(preds []StrPred) []StrClass {
	var exact, prefix []string
	for _, p := range preds {
		if p.Prefix {
			prefix = append(prefix, p.Value)
		} else {
			exact = append(exact, p.Value)
		}
	}
	exact = slices.Compact(slices.Sorted(slices.Values(exact)))
	prefix = slices.Compact(slices.Sorted(slices.Values(prefix)))
	var out []StrClass
	for _, e := range exact {
		out = append(out, StrClass{Kind: StrExact, Value: e, Witness: e})
	}
	member := func(s, longest string) bool {
		if slices.Contains(exact, s) {
			return false
		}
		best := ""
		for _, p := range prefix {
			if strings.HasPrefix(s, p) && len(p) > len(best) {
				best = p
			}
		}
		return best == longest
	}
	for _, p := range prefix {
		for _, suffix := range []string{"\x00", "\x7f", "~meshguard", "#0"} {
			if member(p+suffix, p) {
				out = append(out, StrClass{Kind: StrPrefix, Value: p, Witness: p + suffix})
				break
			}
		}
	}
	for _, w := range []string{"", "\x00meshguard", "~meshguard-other"} {
		if member(w, "") {
			out = append(out, StrClass{Kind: StrOther, Witness: w})
			break
		}
	}
	return out
}
