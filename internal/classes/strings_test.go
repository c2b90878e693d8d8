package classes

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// TestStrClassesPartition: for random exact and prefix conditions, every
// class's witness is in the class it stands for, and every random string meets
// exactly the conditions of the one class it belongs to (by its longest prefix or
// its exact value), so the classes partition the strings.
func TestStrClassesPartition(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "b", "/", "ab", "a/", ""}
	word := func() string {
		var b strings.Builder
		for n := r.Intn(4); n > 0; n-- {
			b.WriteString(alphabet[r.Intn(len(alphabet))])
		}
		return b.String()
	}
	for s := 0; s < 2000; s++ {
		var preds []StrPred
		for n := r.Intn(6); n > 0; n-- {
			p := StrPred{Prefix: r.Intn(2) == 0, Value: word()}
			if p.Prefix && p.Value == "" {
				p.Value = "a"
			}
			preds = append(preds, p)
		}
		cls := StrClasses(preds)
		vector := func(x string) []bool {
			out := make([]bool, len(preds))
			for i, p := range preds {
				out[i] = p.Holds(x)
			}
			return out
		}
		classOf := func(x string) int {
			best, bestLen := -1, -1
			for i, c := range cls {
				switch c.Kind {
				case StrExact:
					if c.Value == x {
						return i
					}
				case StrPrefix:
					if strings.HasPrefix(x, c.Value) && len(c.Value) > bestLen {
						best, bestLen = i, len(c.Value)
					}
				case StrOther:
					if bestLen < 0 {
						best = i
					}
				}
			}
			return best
		}
		for i, c := range cls {
			if got := classOf(c.Witness); got != i {
				t.Fatalf("set %d %+v: witness %q of class %+v falls in class %d", s, preds, c.Witness, c, got)
			}
		}
		for k := 0; k < 30; k++ {
			x := word()
			c := classOf(x)
			if c < 0 {
				t.Fatalf("set %d %+v: %q is in no class of %+v", s, preds, x, cls)
			}
			if !slices.Equal(vector(x), vector(cls[c].Witness)) {
				t.Fatalf("set %d %+v: %q and the witness %q of its class %+v meet different conditions", s, preds, x, cls[c].Witness, cls[c])
			}
		}
	}
}
