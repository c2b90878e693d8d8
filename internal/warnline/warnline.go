// Package warnline writes the one-line statements of admission warnings (the RBAC
// and Linkerd authorization previews) so that each says its point within the
// limit: a list that does not fit loses whole items, counted ("+2 more"), never
// part of one; a name that is alone longer than the line keeps its start and end
// around "…"; and a line that leaves anything out says where the rest is.
//
// Why: the API server shows each warning as one line and drops warnings past about
// 4 KiB in total, so the webhook bounds every line (120 bytes). Cutting a finished
// sentence at the limit left lines ending in "kuma.io/se…", which named no client
// at all. A name here is anything without a space or a comma in it (a policy
// namespace/name, a tag key=value, a SPIFFE ID): statements are written so that
// those two characters only ever separate names.
package warnline

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Width is the byte limit of one warning line (webhook.MaxWarningLen).
const Width = 120

// Elision marks where an elided name lost its middle: "kuma.io/service=ab…yz".
const Elision = "…"

// minElided is the shortest an elided name is made at first (start, "…", end), and
// lastElided the shortest at all: 3 bytes of each end still tell names apart and
// show that it is one name shortened.
const (
	minElided  = 18
	lastElided = 9
)

// Line is one statement: Lead, then Items joined by Sep, then Tail. Items are the
// part that may be shortened to "+K more"; Lead and Tail are kept, with their
// longest names elided only when the line cannot fit otherwise.
type Line struct {
	Lead  string
	Items []string
	// Sep joins the items: ", " when empty.
	Sep  string
	Tail string
	// Cont starts continuation lines of Split; empty: Lead.
	Cont string
}

func (l Line) sep() string {
	if l.Sep == "" {
		return ", "
	}
	return l.Sep
}

// render writes the line with the first k items, "+n more" for the rest, and where
// after the tail when anything was left out.
func (l Line) render(k int, where string) string {
	var b strings.Builder
	b.WriteString(l.Lead)
	sep := l.sep()
	for i, it := range l.Items[:k] {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(it)
	}
	if n := len(l.Items) - k; n > 0 {
		if k > 0 {
			b.WriteString(strings.TrimRight(sep, " ") + " ")
		}
		b.WriteString("+" + strconv.Itoa(n) + " more")
	}
	b.WriteString(l.Tail)
	if k < len(l.Items) && where != "" {
		b.WriteString(" " + where)
	}
	return flat(b.String())
}

// size is len(l.render(k, where)) before flattening (which only shortens), from
// pre, the prefix sums of the items' lengths; O(1), so that fitting a list of
// thousands of items does not render it thousands of times.
func (l Line) size(pre []int, k int, where string) int {
	n := len(l.Lead) + pre[k] + len(l.Tail)
	if k > 1 {
		n += (k - 1) * len(l.sep())
	}
	if m := len(l.Items) - k; m > 0 {
		if k > 0 {
			n += len(strings.TrimRight(l.sep(), " ")) + 1
		}
		n += len("+"+strconv.Itoa(m)+" more") + len(" "+where)
	}
	return n
}

func prefixSums(items []string) []int {
	pre := make([]int, len(items)+1)
	for i, it := range items {
		pre[i+1] = pre[i] + len(it)
	}
	return pre
}

// Fit renders l within width bytes: all of it when it fits; otherwise as many whole
// items as fit, "+K more" and a pointer to the full detail (where: alternatives,
// e.g. "(see the rbac-preview annotation)", then shorter ones; the first that lets
// the most items fit is used, and none when only that lets one item fit whole);
// when not even one item fits, the longest names are elided (and the shortest
// pointer added when there is room).
func (l Line) Fit(width int, where ...string) string {
	pre := prefixSums(l.Items)
	if l.size(pre, len(l.Items), "") <= width {
		if s := l.render(len(l.Items), ""); len(s) <= width {
			return s
		}
	}
	if len(where) == 0 {
		where = []string{""}
	}
	for k := len(l.Items) - 1; k >= 1; k-- {
		for _, w := range where {
			if l.size(pre, k, w) <= width {
				return l.render(k, w)
			}
		}
	}
	// A name is elided only when it cannot fit whole: first without a pointer
	// (the summary's last line points to the rest), then with the shortest one.
	k := min(1, len(l.Items))
	if k < len(l.Items) && l.size(pre, k, "") <= width {
		return l.render(k, "")
	}
	for _, w := range []string{where[len(where)-1], ""} {
		if w != "" {
			w = " " + w
		}
		if s, ok := elide(l.render(k, ""), w, width); ok {
			return s
		}
	}
	return cutWords(l.render(k, ""), width)
}

// Split renders l over at most max lines of width bytes: items are packed into
// lines in order, each continuation line starting with Cont; what the last line
// cannot hold becomes "+K more" and where. An item too long for a line of its own
// is elided as in Fit.
func (l Line) Split(width, max int, where ...string) []string {
	parts := l.split(width, max)
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.Fit(width, where...)
	}
	return out
}

// SplitCount is len(l.Split(width, max, ...)) without rendering a line: how
// many lines l takes, for callers that share out a budget of lines before they
// render only what got some.
func (l Line) SplitCount(width, max int) int {
	return len(l.split(width, max))
}

// split is how Split packs l: the lines it renders, each to be fitted (Fit) in
// width. It only measures (Line.size); where plays no part in the packing.
func (l Line) split(width, max int) []Line {
	if max <= 1 || len(l.Items) == 0 || l.size(prefixSums(l.Items), len(l.Items), "") <= width {
		return []Line{l}
	}
	cont := l.Cont
	if cont == "" {
		cont = l.Lead
	}
	var out []Line
	rest, lead := l.Items, l.Lead
	for len(out) < max-1 && len(rest) > 0 {
		last := Line{Lead: lead, Items: rest, Sep: l.Sep, Tail: l.Tail}
		if last.size(prefixSums(rest), len(rest), "") <= width {
			return append(out, last)
		}
		k, n := 1, len(lead)+len(rest[0])
		for k < len(rest) && n+len(l.sep())+len(rest[k]) <= width {
			n += len(l.sep()) + len(rest[k])
			k++
		}
		if k == len(rest) && k > 1 {
			k-- // the last item goes with the tail
		}
		if k == len(rest) {
			break // one item that does not fit with the tail: Fit elides
		}
		out = append(out, Line{Lead: lead, Items: rest[:k], Sep: l.Sep})
		rest, lead = rest[k:], cont
	}
	if len(rest) > 0 {
		out = append(out, Line{Lead: lead, Items: rest, Sep: l.Sep, Tail: l.Tail})
	}
	return out
}

// Text fits a statement without a list: its longest names are elided when it is
// longer than width, and a pointer of where added then (see Fit).
func Text(s string, width int, where ...string) string {
	return Line{Lead: s}.Fit(width, where...)
}

// Elide shortens one name to at most n bytes (not below a few bytes of each end),
// keeping its start and end around Elision. Names of at most n bytes are returned
// as they are.
func Elide(name string, n int) string {
	if len(name) <= n {
		return name
	}
	keep := max(n, lastElided) - len(Elision)
	head := (keep + 1) / 2
	for head > 0 && !utf8.RuneStart(name[head]) {
		head--
	}
	tail := len(name) - (keep - head)
	for tail < len(name) && !utf8.RuneStart(name[tail]) {
		tail++
	}
	return name[:head] + Elision + name[tail:]
}

// span is a name of a line: s[start:end], shortened to n bytes when n < end-start.
type span struct{ start, end, n int }

// elide shortens the longest names of s (not of suffix) until s+suffix fits in
// width: first down to minElided bytes each, then the names already shortened and
// then others down to lastElided. ok=false when even that is too long.
func elide(s, suffix string, width int) (string, bool) {
	names := nameSpans(s)
	over := len(s) + len(suffix) - width
	for _, floor := range []int{minElided, lastElided} {
		for _, shortenedFirst := range []bool{true, false} {
			for over > 0 {
				i := longestSpan(names, floor, shortenedFirst && floor == lastElided)
				if i < 0 {
					break
				}
				n := max(floor, names[i].n-over)
				over -= names[i].n - n
				names[i].n = n
			}
		}
	}
	if over > 0 {
		return "", false
	}
	var b strings.Builder
	last := 0
	for _, sp := range names {
		b.WriteString(s[last:sp.start])
		b.WriteString(Elide(s[sp.start:sp.end], sp.n))
		last = sp.end
	}
	b.WriteString(s[last:])
	return b.String() + suffix, true
}

// longestSpan is the index of the longest name longer than floor (only among
// those already shortened when shortened is set); -1 when there is none.
func longestSpan(names []span, floor int, shortened bool) int {
	best := -1
	for i, sp := range names {
		if sp.n <= floor || (shortened && sp.n == sp.end-sp.start) {
			continue
		}
		if best < 0 || sp.n > names[best].n {
			best = i
		}
	}
	return best
}

// nameSpans are the names of s: runs without spaces and commas, less the brackets
// and punctuation statements put around names, that look like names rather than
// words of the statement (see isName).
func nameSpans(s string) []span {
	var out []span
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != ',' {
			j++
		}
		a, b := trimName(s, i, j)
		if isName(s[a:b]) {
			out = append(out, span{a, b, b - a})
		}
		i = j + 1
	}
	return out
}

// isName tells a name (with a character no English word of a statement has, or
// longer than any of them) from a word of the statement, which is never elided.
func isName(w string) bool {
	if len(w) <= lastElided || strings.Contains(w, Elision) {
		return false
	}
	return len(w) > 24 || strings.ContainsAny(w, "-_./=:@0123456789")
}

// trimName drops the punctuation statements put around a name in s[i:j].
func trimName(s string, i, j int) (int, int) {
	for i < j && strings.IndexByte("(\"'`", s[i]) >= 0 {
		i++
	}
	for j > i && strings.IndexByte(")\"'`:;", s[j-1]) >= 0 {
		j--
	}
	return i, j
}

// cutWords is the last resort for a statement that has more names than fit even
// elided: whole words up to the limit, then Elision as a word of its own.
func cutWords(s string, width int) string {
	for len(s)+len(" "+Elision) > width {
		i := strings.LastIndexByte(s, ' ')
		if i <= 0 {
			return Elide(s, width)
		}
		s = s[:i]
	}
	return s + " " + Elision
}

// flat makes s one line with single spaces.
func flat(s string) string {
	if strings.ContainsAny(s, "\t\n\v\f\r\u0085\u00a0") || strings.Contains(s, "  ") || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		return strings.Join(strings.Fields(s), " ")
	}
	return s
}
