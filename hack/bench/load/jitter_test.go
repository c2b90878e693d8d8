package load

import (
	"strings"
	"testing"
	"time"
)

func TestMeasureJitter(t *testing.T) {
	j := MeasureJitter(100*time.Millisecond, time.Millisecond)
	if j.Samples < 10 || j.Interval != 1 {
		t.Fatalf("%d samples of %v ms in 100 ms", j.Samples, j.Interval)
	}
	if j.P50 < 0 || j.P99 < j.P50 || j.Max < j.P99 || j.OverTarget > j.Samples {
		t.Fatalf("inconsistent jitter %+v", j)
	}
}

// TestReportJitter: the report says when the machine alone stalls past the p99
// target in more than 1% of its wake-ups, and not otherwise.
func TestReportJitter(t *testing.T) {
	for _, tc := range []struct {
		over int
		says bool
	}{{0, false}, {10, false}, {11, true}} {
		r := &Report{Jitter: &Jitter{Interval: 1, Samples: 1000, P50: 0.1, P99: 2, Max: 30, OverTarget: tc.over}}
		var b strings.Builder
		r.Markdown(&b)
		if !strings.Contains(b.String(), "machine jitter") {
			t.Fatalf("no jitter line:\n%s", b.String())
		}
		if got := strings.Contains(b.String(), "cannot be met by any webhook"); got != tc.says {
			t.Errorf("%d of 1000 sleeps over the target: says the target cannot be met = %v", tc.over, got)
		}
	}
}
