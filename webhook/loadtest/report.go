package loadtest

import (
	"fmt"
	"io"
	"strings"
)

// The targets of issue 4 for the validating path.
const (
	MinThroughputRatio = 0.80
	MaxP99Millis       = 5.0
)

// Report is the outcome of a run: every phase against both targets, and the verdict
// on the targets.
type Report struct {
	Command     string   `json:"command"`
	Machine     string   `json:"machine"`
	Results     []Result `json:"results"`
	Ratio       float64  `json:"throughputRatio"`
	RatioMet    bool     `json:"throughputRatioMet"`
	OpenP99     float64  `json:"openLoopP99ms"`
	OpenRate    float64  `json:"openLoopRate"`
	P99Met      bool     `json:"p99Met"`
	ErrorsTotal int      `json:"errors"`
}

// find returns the result of phase against the target named name.
func (r *Report) find(name, phase string) (Result, bool) {
	for _, res := range r.Results {
		if res.Target == name && res.Phase == phase {
			return res, true
		}
	}
	return Result{}, false
}

// Judge fills in the verdict: meshguard's closed-loop throughput against the
// no-op's, and meshguard's open-loop p99 against MaxP99Millis.
func (r *Report) Judge(meshguard, noop string) {
	r.ErrorsTotal = 0
	for _, res := range r.Results {
		r.ErrorsTotal += res.Errors
	}
	m, okM := r.find(meshguard, ClosedLoop)
	n, okN := r.find(noop, ClosedLoop)
	if okM && okN && n.RPS > 0 {
		r.Ratio = m.RPS / n.RPS
		r.RatioMet = r.Ratio >= MinThroughputRatio
	}
	if o, ok := r.find(meshguard, OpenLoop); ok {
		r.OpenP99, r.OpenRate = o.P99, o.TargetRate
		r.P99Met = o.P99 < MaxP99Millis && o.Errors == 0
	}
}

// Markdown writes the results as a table followed by the verdict.
func (r *Report) Markdown(w io.Writer) {
	fmt.Fprintln(w, "| target | phase | requests | req/s | p50 ms | p90 ms | p99 ms | max ms | errors |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, res := range r.Results {
		phase := fmt.Sprintf("closed loop, %d in flight, %.0fs", res.Concurrency, res.Seconds)
		if res.Phase == OpenLoop {
			phase = fmt.Sprintf("open loop, %.0f req/s scheduled", res.TargetRate)
		}
		fmt.Fprintf(w, "| %s | %s | %d | %.0f | %.2f | %.2f | %.2f | %.2f | %d |\n",
			res.Target, phase, res.Requests, res.RPS, res.P50, res.P90, res.P99, res.Max, res.Errors)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "- Throughput, meshguard / no-op (closed loop): **%.2f** (target ≥ %.2f): %s\n", r.Ratio, MinThroughputRatio, verdict(r.RatioMet))
	fmt.Fprintf(w, "- meshguard p99 at %.0f req/s (open loop): **%.2f ms** (target < %.0f ms, no errors): %s\n", r.OpenRate, r.OpenP99, MaxP99Millis, verdict(r.P99Met))
	if r.ErrorsTotal > 0 {
		var firsts []string
		for _, res := range r.Results {
			if res.FirstError != "" {
				firsts = append(firsts, res.Target+" "+res.Phase+": "+res.FirstError)
			}
		}
		fmt.Fprintf(w, "- Errors: %d (%s)\n", r.ErrorsTotal, strings.Join(firsts, "; "))
	}
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**not met**"
}
