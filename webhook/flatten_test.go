package webhook

import (
	"strings"
	"testing"
)

func TestFlatten(t *testing.T) {
	for _, l := range []string{"", " ", "a", "a b", " a", "a ", "a  b", "a\tb", "a\nb", "a\u00a0b", "é b", "a\u0085", "x: y z [CODE]"} {
		if got, want := flatten(l), strings.Join(strings.Fields(l), " "); got != want {
			t.Errorf("flatten(%q) = %q, want %q", l, got, want)
		}
	}
}
