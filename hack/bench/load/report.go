package load

import (
	"fmt"
	"io"
	"strings"
)

// The targets of issue 14 for the validating path: distinct new
// MeshTrafficPermissions per second of one replica (closed loop), and the p99 of
// the open loop.
const (
	MinReviewsPerSecond = 1000
	MaxP99Millis        = 5.0
)

// Report is the outcome of a run: every phase against every target, and the
// verdict on the targets for each meshguard target.
type Report struct {
	Command string   `json:"command"`
	Machine string   `json:"machine"`
	Results []Result `json:"results"`
	// Jitter is the machine's own wake-up delay, measured before the phases.
	Jitter      *Jitter   `json:"jitter,omitempty"`
	Verdicts    []Verdict `json:"verdicts"`
	Notes       []string  `json:"notes,omitempty"`
	ErrorsTotal int       `json:"errors"`
}

// Verdict is one meshguard target against issue 14's targets; Ratio (to the no-op
// baseline) is for reference only.
type Verdict struct {
	Target   string  `json:"target"`
	Baseline string  `json:"baseline"`
	RPS      float64 `json:"reviewsPerSecond"`
	RPSMet   bool    `json:"reviewsPerSecondMet"`
	Ratio    float64 `json:"throughputRatio"`
	OpenP99  float64 `json:"openLoopP99ms"`
	OpenRate float64 `json:"openLoopRate"`
	P99Met   bool    `json:"p99Met"`
}

// Pair names a meshguard target and the no-op target that got the same requests.
type Pair struct{ Target, Baseline string }

// find returns the result of phase against the target named name.
func (r *Report) find(name, phase string) (Result, bool) {
	for _, res := range r.Results {
		if res.Target == name && res.Phase == phase {
			return res, true
		}
	}
	return Result{}, false
}

// Judge fills in the verdicts: for each pair, the meshguard target's closed-loop
// throughput against MinReviewsPerSecond (and, for reference, its no-op
// baseline's), and its open-loop p99 against MaxP99Millis.
func (r *Report) Judge(pairs ...Pair) {
	r.ErrorsTotal = 0
	for _, res := range r.Results {
		r.ErrorsTotal += res.Errors
	}
	r.Verdicts = r.Verdicts[:0]
	for _, p := range pairs {
		v := Verdict{Target: p.Target, Baseline: p.Baseline}
		n, okN := r.find(p.Baseline, ClosedLoop)
		if m, ok := r.find(p.Target, ClosedLoop); ok {
			v.RPS, v.RPSMet = m.RPS, m.RPS >= MinReviewsPerSecond && m.Errors == 0
			if okN && n.RPS > 0 {
				v.Ratio = m.RPS / n.RPS
			}
		}
		if o, ok := r.find(p.Target, OpenLoop); ok {
			v.OpenP99, v.OpenRate = o.P99, o.TargetRate
			v.P99Met = o.P99 < MaxP99Millis && o.Errors == 0
		}
		r.Verdicts = append(r.Verdicts, v)
	}
}

// Markdown writes the results as a table followed by the verdicts and notes.
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
	for _, v := range r.Verdicts {
		fmt.Fprintf(w, "- %s:\n", v.Target)
		fmt.Fprintf(w, "  - throughput (closed loop): **%.0f reviews/s** (target ≥ %d, no errors): %s; %.2f of %s\n", v.RPS, MinReviewsPerSecond, verdict(v.RPSMet), v.Ratio, v.Baseline)
		fmt.Fprintf(w, "  - p99 at %.0f req/s (open loop): **%.2f ms** (target < %.0f ms, no errors): %s\n", v.OpenRate, v.OpenP99, MaxP99Millis, verdict(v.P99Met))
	}
	if j := r.Jitter; j != nil {
		fmt.Fprintf(w, "- machine jitter (a goroutine sleeping %.0f ms, %d times, nothing else running): woke late by p50 %.2f ms, p99 %.2f ms, max %.2f ms; %d sleeps woke more than %.0f ms late%s\n",
			j.Interval, j.Samples, j.P50, j.P99, j.Max, j.OverTarget, MaxP99Millis, jitterWords(j))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "- %s\n", n)
	}
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

// jitterWords says when the machine's own stalls decide the p99 verdicts.
func jitterWords(j *Jitter) string {
	if j.Samples > 0 && float64(j.OverTarget) > 0.01*float64(j.Samples) {
		return " — more than 1%: on this machine the p99 target cannot be met by any webhook, the no-op included"
	}
	return ""
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**not met**"
}
