package apilatency

import (
	"strings"
	"testing"
	"time"
)

func TestScrapeReadsEachSeries(t *testing.T) {
	text := `# HELP controller_runtime_webhook_requests_total Total number of admission requests by HTTP status code.
# TYPE controller_runtime_webhook_requests_total counter
controller_runtime_webhook_requests_total{code="200",webhook="/mutate"} 12
controller_runtime_webhook_requests_total{code="200",webhook="/validate"} 11
controller_runtime_webhook_requests_total_other{code="200"} 99
`
	got := scrape(strings.NewReader(text), "controller_runtime_webhook_requests_total")
	want := map[string]float64{`code="200",webhook="/mutate"`: 12, `code="200",webhook="/validate"`: 11}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %v, want %v", k, got[k], v)
		}
	}
}

func TestPercentilesOfHundred(t *testing.T) {
	var d []time.Duration
	for i := 100; i >= 1; i-- {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	got := percentiles(d)
	want := [4]float64{51, 91, 100, 100}
	if got != want {
		t.Errorf("got %v, want %v", got, want)
	}
}
