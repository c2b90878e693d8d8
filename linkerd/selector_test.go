package linkerd

import (
	"math/rand"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func TestOverlapCases(t *testing.T) {
	ml := func(kv ...string) metav1.LabelSelector {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return metav1.LabelSelector{MatchLabels: m}
	}
	ex := func(key string, op metav1.LabelSelectorOperator, vs ...string) metav1.LabelSelector {
		return metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: op, Values: vs}}}
	}
	cases := []struct {
		name string
		a, b metav1.LabelSelector
		want bool
	}{
		{"empty vs empty", metav1.LabelSelector{}, metav1.LabelSelector{}, true},
		{"empty vs labels", metav1.LabelSelector{}, ml("app", "web"), true},
		{"same labels", ml("app", "web"), ml("app", "web"), true},
		{"different values", ml("app", "web"), ml("app", "api"), false},
		{"different keys", ml("app", "web"), ml("tier", "front"), true},
		{"In x vs NotIn x", ex("app", metav1.LabelSelectorOpIn, "x"), ex("app", metav1.LabelSelectorOpNotIn, "x"), false},
		{"In x,y vs NotIn x", ex("app", metav1.LabelSelectorOpIn, "x", "y"), ex("app", metav1.LabelSelectorOpNotIn, "x"), true},
		{"Exists vs DoesNotExist", ex("app", metav1.LabelSelectorOpExists), ex("app", metav1.LabelSelectorOpDoesNotExist), false},
		{"NotIn vs DoesNotExist", ex("app", metav1.LabelSelectorOpNotIn, "x"), ex("app", metav1.LabelSelectorOpDoesNotExist), true},
		{"labels vs In other", ml("app", "web"), ex("app", metav1.LabelSelectorOpIn, "api", "db"), false},
		{"labels vs In same", ml("app", "web"), ex("app", metav1.LabelSelectorOpIn, "api", "web"), true},
		{"labels vs DoesNotExist", ml("app", "web"), ex("app", metav1.LabelSelectorOpDoesNotExist), false},
		{"NotIn vs NotIn", ex("app", metav1.LabelSelectorOpNotIn, "x"), ex("app", metav1.LabelSelectorOpNotIn, "y"), true},
		{"unknown operator", ex("app", "Matches", "x"), metav1.LabelSelector{}, false},
		{"In without values", ex("app", metav1.LabelSelectorOpIn), metav1.LabelSelector{}, false},
	}
	for _, c := range cases {
		if got := Overlap(c.a, c.b); got != c.want {
			t.Errorf("%s: Overlap = %v, want %v", c.name, got, c.want)
		}
		if got := Overlap(c.b, c.a); got != c.want {
			t.Errorf("%s (swapped): Overlap = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestOverlapBruteForce compares Overlap with Kubernetes' own selector matching over
// every label set of a small universe: 3 keys, each absent or one of 3 values used by
// the selectors or a fourth value no selector names (so NotIn-only keys have a value
// left, as with real strings).
func TestOverlapBruteForce(t *testing.T) {
	keys := []string{"a", "b", "c"}
	vals := []string{"x", "y", "z"}
	choices := append([]string{""}, append(vals, "other")...) // "" means absent
	var sets []labels.Set
	var build func(i int, cur labels.Set)
	build = func(i int, cur labels.Set) {
		if i == len(keys) {
			sets = append(sets, labels.Merge(cur, nil))
			return
		}
		for _, v := range choices {
			next := labels.Merge(cur, nil)
			if v != "" {
				next[keys[i]] = v
			}
			build(i+1, next)
		}
	}
	build(0, labels.Set{})
	if len(sets) != 125 {
		t.Fatalf("universe has %d label sets, want 125", len(sets))
	}
	rng := rand.New(rand.NewSource(6))
	ops := []metav1.LabelSelectorOperator{metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn,
		metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist}
	randSel := func() metav1.LabelSelector {
		var s metav1.LabelSelector
		if rng.Intn(2) == 0 {
			s.MatchLabels = map[string]string{}
			for n := rng.Intn(3); n > 0; n-- {
				s.MatchLabels[keys[rng.Intn(len(keys))]] = vals[rng.Intn(len(vals))]
			}
		}
		for n := rng.Intn(4); n > 0; n-- {
			r := metav1.LabelSelectorRequirement{Key: keys[rng.Intn(len(keys))], Operator: ops[rng.Intn(len(ops))]}
			if r.Operator == metav1.LabelSelectorOpIn || r.Operator == metav1.LabelSelectorOpNotIn {
				for _, v := range vals {
					if rng.Intn(2) == 0 {
						r.Values = append(r.Values, v)
					}
				}
				if len(r.Values) == 0 {
					r.Values = []string{vals[rng.Intn(len(vals))]}
				}
			}
			s.MatchExpressions = append(s.MatchExpressions, r)
		}
		return s
	}
	overlaps := 0
	for i := 0; i < 5000; i++ {
		a, b := randSel(), randSel()
		sa, err := metav1.LabelSelectorAsSelector(&a)
		if err != nil {
			t.Fatalf("selector %+v: %v", a, err)
		}
		sb, err := metav1.LabelSelectorAsSelector(&b)
		if err != nil {
			t.Fatalf("selector %+v: %v", b, err)
		}
		want := false
		for _, l := range sets {
			if sa.Matches(l) && sb.Matches(l) {
				want = true
				break
			}
		}
		if want {
			overlaps++
		}
		if got := Overlap(a, b); got != want {
			t.Fatalf("Overlap(%+v, %+v) = %v, brute force says %v", a, b, got, want)
		}
	}
	// Both outcomes must be well represented, or the test proves little.
	if overlaps < 500 || overlaps > 4500 {
		t.Errorf("%d of 5000 pairs overlap; the generator is too lopsided", overlaps)
	}
}
