package webhook

import (
	"strings"
	"testing"
)

func TestFlatten(t *testing.T) {
	for _, l := range []string{"", " ", "a", "a b", " a", "a ", "a  b", "a\tb", "a\nb", "a\u00a0b", "é b", "a\u0085", "x: y z [CODE]", "x…y", "…", "a… b", "a …", "\xff \xfe", "a\u3000b"} {
		if got, want := flatten(l), strings.Join(strings.Fields(l), " "); got != want {
			t.Errorf("flatten(%q) = %q, want %q", l, got, want)
		}
	}
}

func FuzzFlatten(f *testing.F) {
	for _, l := range []string{"", " ", "a b", "a  b", "a\u00a0b", "x…y", "\xff b", "a\u2028b", "a\u3000"} {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, l string) {
		if got, want := flatten(l), strings.Join(strings.Fields(l), " "); got != want {
			t.Errorf("flatten(%q) = %q, want %q", l, got, want)
		}
	})
}
