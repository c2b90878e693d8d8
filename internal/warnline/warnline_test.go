package warnline

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const where = "(see the annotation)"

func TestFit(t *testing.T) {
	long := "kuma.io/service=" + strings.Repeat("a", 150) + "-end"
	for _, c := range []struct {
		name  string
		line  Line
		width int
		want  string
	}{
		{"fits", Line{Lead: "allowed: ", Items: []string{"web", "api"}, Tail: "; everyone else denied"}, 120,
			"allowed: web, api; everyone else denied"},
		{"whole items then a count", Line{Lead: "allows 4 more clients: ", Items: []string{"web-frontend", "api-gateway1", "db-primary12", "cache-redis1"}}, 70,
			"allows 4 more clients: web-frontend, +3 more " + where},
		{"chain separator", Line{Lead: "chain: ", Items: []string{"DENY aaaaaaaaaa", "ALLOW bbbbbbbbbb", "ALLOW cccccccccc"}, Sep: " > "}, 55,
			"chain: DENY aaaaaaaaaa > +2 more " + where},
		{"one name longer than the line", Line{Lead: "allows: ", Items: []string{long}}, 60,
			"allows: kuma.io/servic…aaaaaaaaaa-end " + where},
		{"whitespace flattened", Line{Lead: "a\n b  c"}, 120, "a b c"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.line.Fit(c.width, where)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("Fit (-want +got):\n%s", diff)
			}
			if len(got) > c.width {
				t.Errorf("%d bytes, over %d", len(got), c.width)
			}
		})
	}
}

// TestFitPointers: the pointer that lets the most items fit, the longer of equals.
func TestFitPointers(t *testing.T) {
	a, b, c := strings.Repeat("a", 30), strings.Repeat("b", 30), strings.Repeat("c", 30)
	l := Line{Lead: "allowed: ", Items: []string{a, b, c}}
	for _, tc := range []struct {
		width int
		want  string
	}{
		{70, "allowed: " + a + ", +2 more (see rbac-preview)"},
		{85, "allowed: " + a + ", +2 more (see the rbac-preview annotation)"},
		{100, "allowed: " + a + ", " + b + ", +1 more (see rbac-preview)"},
	} {
		if got := l.Fit(tc.width, "(see the rbac-preview annotation)", "(see rbac-preview)"); got != tc.want {
			t.Errorf("Fit(%d) = %q, want %q", tc.width, got, tc.want)
		}
	}
}

func TestSplit(t *testing.T) {
	items := []string{"ALLOW kuma.io/service=web-aaaaaaaaaa", "DENY env=dev", "ALLOW kuma.io/service=api-bbbbbbbbbb", "ALLOW all clients"}
	l := Line{Lead: "last match wins: ", Cont: "last match wins, continued: ", Items: items, Sep: " > ", Tail: " (1 item never decides)"}
	got := l.Split(80, 3, where)
	want := []string{
		"last match wins: ALLOW kuma.io/service=web-aaaaaaaaaa > DENY env=dev",
		"last match wins, continued: ALLOW kuma.io/service=api-bbbbbbbbbb",
		"last match wins, continued: ALLOW all clients (1 item never decides)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Split (-want +got):\n%s", diff)
	}
	// Two lines: the second keeps the tail, so its name is elided for room.
	got = l.Split(80, 2, where)
	want = []string{
		"last match wins: ALLOW kuma.io/service=web-aaaaaaaaaa > DENY env=dev",
		"last match wins, continued: ALLOW kuma.…bbbbb > +1 more (1 item never decides)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Split into 2 (-want +got):\n%s", diff)
	}
}

func TestElide(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghijklmnopqrstuvwxyz", 13, "abcde…vwxyz"},
		{"éééééééééé", 9, "é…éé"},
	} {
		if got := Elide(c.name, c.n); got != c.want || len(got) > max(c.n, lastElided) {
			t.Errorf("Elide(%q, %d) = %q, want %q", c.name, c.n, got, c.want)
		}
	}
}

// TestFitKeepsNames fits random statements of random names and checks every
// line: within the width, and each name whole, counted away or elided with its
// start and end; and that SplitCount counts the lines Split gives.
func TestFitKeepsNames(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := range 3000 {
		names := map[string]bool{}
		name := func() string {
			n := "n" + strings.Repeat("x", r.Intn(300)) + "-" + string(rune('a'+i%26)) + "z"
			names[n] = true
			return n
		}
		l := Line{Lead: "lead " + name() + " says: "}
		for range r.Intn(12) {
			l.Items = append(l.Items, name())
		}
		if r.Intn(2) == 0 {
			l.Tail = " in " + name()
		}
		width, max := 60+r.Intn(80), 1+r.Intn(3)
		lines := l.Split(width, max, where)
		if n := l.SplitCount(width, max); n != len(lines) {
			t.Fatalf("SplitCount %d, Split gave %d lines: %q", n, len(lines), lines)
		}
		for _, got := range lines {
			if len(got) > width || strings.Contains(got, "\n") {
				t.Fatalf("%q: %d bytes, over %d", got, len(got), width)
			}
			for _, tok := range strings.FieldsFunc(got, func(r rune) bool { return r == ' ' || r == ',' }) {
				if !strings.HasPrefix(tok, "n") || strings.HasPrefix(tok, "names") {
					continue
				}
				if start, end, cut := strings.Cut(tok, Elision); cut {
					if len(start) < 3 || len(end) < 3 || !strings.HasPrefix(tok, "n") {
						t.Fatalf("%q: %q is not an elision", got, tok)
					}
					continue
				}
				if tok = strings.TrimSuffix(tok, ":"); !names[tok] {
					t.Fatalf("%q: %q is cut", got, tok)
				}
			}
		}
	}
}
