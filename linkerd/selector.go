// Package linkerd holds meshguard's cross-object analysis of Linkerd policies: label
// selector overlap, Server port overlap and Server conflicts (Linkerd's policy design, "Handling
// conflicts"). It is pure: no API calls and no controller-runtime, so the linter and
// the webhook share it.
package linkerd

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// keyConstraint gathers what both selectors ask of one label key.
type keyConstraint struct {
	mustExist bool            // matchLabels, In or Exists
	mustNot   bool            // DoesNotExist
	in        map[string]bool // intersection of In sets (and matchLabels values); nil: no In yet
	notIn     map[string]bool // union of NotIn sets
}

// Overlap reports whether some label set satisfies both selectors, that is whether a
// pod could be selected by both. An empty selector matches everything. Requirements
// are decided key by key, because label keys are independent: a key is satisfiable
// when it may be absent (no matchLabels, In or Exists on it) or when some value
// survives every In (intersection) and NotIn (removed) and no DoesNotExist forbids
// it. Values are arbitrary strings, so a key with only NotIn requirements always has
// a value left. A requirement Kubernetes would reject (an unknown operator, In or
// NotIn without values, Exists or DoesNotExist with values) makes its selector match
// nothing, as a selector that fails to parse selects no pod.
func Overlap(a, b metav1.LabelSelector) bool {
	keys := map[string]*keyConstraint{}
	get := func(k string) *keyConstraint {
		c := keys[k]
		if c == nil {
			c = &keyConstraint{}
			keys[k] = c
		}
		return c
	}
	for _, s := range []metav1.LabelSelector{a, b} {
		for k, v := range s.MatchLabels {
			get(k).restrictIn([]string{v})
		}
		for _, r := range s.MatchExpressions {
			c := get(r.Key)
			switch r.Operator {
			case metav1.LabelSelectorOpIn:
				if len(r.Values) == 0 {
					return false
				}
				c.restrictIn(r.Values)
			case metav1.LabelSelectorOpNotIn:
				if len(r.Values) == 0 {
					return false
				}
				if c.notIn == nil {
					c.notIn = map[string]bool{}
				}
				for _, v := range r.Values {
					c.notIn[v] = true
				}
			case metav1.LabelSelectorOpExists:
				if len(r.Values) > 0 {
					return false
				}
				c.mustExist = true
			case metav1.LabelSelectorOpDoesNotExist:
				if len(r.Values) > 0 {
					return false
				}
				c.mustNot = true
			default:
				return false
			}
		}
	}
	for _, c := range keys {
		if !c.satisfiable() {
			return false
		}
	}
	return true
}

// restrictIn intersects the allowed values with vs and requires the key.
func (c *keyConstraint) restrictIn(vs []string) {
	c.mustExist = true
	next := map[string]bool{}
	for _, v := range vs {
		if c.in == nil || c.in[v] {
			next[v] = true
		}
	}
	c.in = next
}

// satisfiable reports whether the key can be absent or take some allowed value.
func (c *keyConstraint) satisfiable() bool {
	if !c.mustExist {
		return true // absent satisfies NotIn and DoesNotExist alike
	}
	if c.mustNot {
		return false
	}
	if c.in == nil {
		return true // only Exists/NotIn: some value outside the NotIn set exists
	}
	for v := range c.in {
		if !c.notIn[v] {
			return true
		}
	}
	return false
}
