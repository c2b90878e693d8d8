package lint

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// sortInput is n findings as a large run has them: one file, a line per
// document, two codes and a few fields, in the order the stages report them
// (each stage's findings in document order, one stage after another).
func sortInput(n int) []Finding {
	rng := rand.New(rand.NewPCG(27, 5))
	fs := make([]Finding, 0, n)
	for stage := 0; stage < 2; stage++ {
		for doc := 0; doc < n/2; doc++ {
			line := doc*20 + 1 + rng.IntN(15)
			fs = append(fs, Finding{File: "small.yaml", Line: line, Code: fmt.Sprintf("MG%03d", 400+stage*rng.IntN(3)),
				Field: fmt.Sprintf("spec.rules[%d]", rng.IntN(3)), Message: fmt.Sprint(stage, doc)})
		}
	}
	return fs
}

// TestSortFindingsOrder: compareFindings orders as the four keys compared in
// turn with cmp.Or did, ties kept in input order.
func TestSortFindingsOrder(t *testing.T) {
	fs := sortInput(20000)
	fs = append(fs, Finding{File: "a.yaml", Line: 3}, Finding{File: "a.yaml", Line: 3, Code: "MG001"})
	want := slices.Clone(fs)
	slices.SortStableFunc(want, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Code, b.Code), cmp.Compare(a.Field, b.Field))
	})
	SortFindings(fs)
	for i := range fs {
		if fs[i] != want[i] {
			t.Fatalf("finding %d: got %+v, want %+v", i, fs[i], want[i])
		}
	}
}

func BenchmarkSortFindings(b *testing.B) {
	in := sortInput(128000)
	fs := make([]Finding, len(in))
	for b.Loop() {
		copy(fs, in)
		SortFindings(fs)
	}
}

func BenchmarkSortFindingsCmpOr(b *testing.B) {
	in := sortInput(128000)
	fs := make([]Finding, len(in))
	for b.Loop() {
		copy(fs, in)
		slices.SortStableFunc(fs, func(a, b Finding) int {
			return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
				cmp.Compare(a.Code, b.Code), cmp.Compare(a.Field, b.Field))
		})
	}
}
