package lint

import (
	"fmt"
	"strings"
	"testing"
)

// holdFigures fails t unless the releases × suites table of docs/conformance.md
// (between the release-suites markers) has the row of Kuma release version and
// suite with these figures: cases, verdicts that agree, and their share. The
// suites' tests call it with what they have just measured, so the table cannot
// drift from them.
func holdFigures(t *testing.T, version, suite string, cases, agree int) {
	t.Helper()
	want := []string{fmt.Sprint(cases), fmt.Sprint(agree), fmt.Sprintf("%.2f%%", 100*float64(agree)/float64(cases))}
	for _, line := range strings.Split(markedTable(t, conformanceDoc, "release-suites"), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 7 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "Kuma "+version+" ") || strings.TrimSpace(cells[2]) != suite {
			continue
		}
		got := []string{strings.TrimSpace(cells[3]), strings.TrimSpace(cells[4]), strings.TrimSpace(cells[5])}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("docs/conformance.md (release-suites): Kuma %s %s is %v, the suite measures %v", version, suite, got, want)
		}
		return
	}
	t.Errorf("docs/conformance.md (release-suites) has no row for Kuma %s %s: add | Kuma %s (tag) | %s | %s | %s | %s | ... |", version, suite, version, suite, want[0], want[1], want[2])
}
