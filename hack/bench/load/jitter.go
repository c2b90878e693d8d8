package load

import (
	"slices"
	"time"
)

// Jitter is how late this machine wakes a goroutine from a short sleep, measured
// with nothing else running in the process. It is the floor under the open
// loop's latencies: a request due while the machine stalls waits for the stall,
// so when the machine alone oversleeps by more than MaxP99Millis in more than 1%
// of the intervals, no webhook — not even the no-op — can show a p99 under it.
type Jitter struct {
	Interval float64 `json:"intervalMs"`
	Samples  int     `json:"samples"`
	P50      float64 `json:"p50LateMs"`
	P99      float64 `json:"p99LateMs"`
	Max      float64 `json:"maxLateMs"`
	// OverTarget counts the sleeps that woke more than MaxP99Millis late.
	OverTarget int `json:"overTargetCount"`
}

// MeasureJitter sleeps for interval again and again for d and reports how late
// each sleep ended.
func MeasureJitter(d, interval time.Duration) Jitter {
	var late []time.Duration
	for end := time.Now().Add(d); time.Now().Before(end); {
		t := time.Now()
		time.Sleep(interval)
		late = append(late, max(0, time.Since(t)-interval))
	}
	slices.Sort(late)
	j := Jitter{Interval: ms(interval), Samples: len(late)}
	if len(late) == 0 {
		return j
	}
	j.P50, j.P99, j.Max = ms(percentile(late, 0.50)), ms(percentile(late, 0.99)), ms(late[len(late)-1])
	for _, l := range late {
		if ms(l) > MaxP99Millis {
			j.OverTarget++
		}
	}
	return j
}
