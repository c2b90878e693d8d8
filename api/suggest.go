package api

import "strings"

// maxSuggestLen bounds the words Suggest compares by edit distance: a longer word is
// no slip of the finger, and the distance costs len(a)·len(b).
const maxSuggestLen = 64

// Suggest returns the accepted spelling the user most likely meant by got, or ""
// when none is close: first a candidate equal to got ignoring case, else one within
// a small edit distance (a transposition such as "defualt" for "default" counts as
// one edit; up to 1 edit for words of up to 7 letters, 2 up to 11, 3 beyond). Among
// equally close candidates the one closest with case counted wins, then the first.
// Findings use it for "did you mean" hints, so a typo gets the fix, not a list.
func Suggest(got string, candidates []string) string {
	if got == "" {
		return ""
	}
	limit := min(max(len(got)/4, 1), 3)
	lower := strings.ToLower(got)
	best, bestFold, bestExact := "", limit+1, 0
	for _, c := range candidates {
		if c == got {
			continue
		}
		var fold int
		switch {
		case strings.EqualFold(c, got):
			fold = 0
		case len(got) > maxSuggestLen || len(c) > maxSuggestLen || absDiff(len(c), len(got)) > limit:
			continue
		default:
			fold = editDistance(lower, strings.ToLower(c))
		}
		if fold > bestFold {
			continue
		}
		exact := editDistance(got, c)
		if fold < bestFold || exact < bestExact {
			best, bestFold, bestExact = c, fold, exact
		}
	}
	return best
}

func absDiff(a, b int) int {
	if a > b {
		return a - b
	}
	return b - a
}

// editDistance is the optimal-string-alignment distance between a and b in runes:
// insertions, deletions, substitutions and adjacent transpositions cost 1 each.
// Callers bound the lengths (maxSuggestLen); case-insensitive matches reach it too,
// so it is bounded here as well.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > maxSuggestLen || len(rb) > maxSuggestLen {
		return max(len(ra), len(rb))
	}
	// rows i-2, i-1 and i of the dynamic-programming table.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
