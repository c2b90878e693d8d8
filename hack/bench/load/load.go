package load

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/meshguard/meshguard/webhook/webhooktest"
)

// Target is one webhook endpoint under load.
type Target struct {
	Name string
	URL  string
	// Reviews, when set, are sent round-robin instead of the Load's one review
	// (encoded beforehand, so that generating them is not measured).
	Reviews []*webhooktest.Review
	next    *atomic.Uint64
}

// WithReviews returns t sending reviews round-robin.
func (t Target) WithReviews(reviews []*webhooktest.Review) Target {
	t.Reviews, t.next = reviews, new(atomic.Uint64)
	return t
}

// Sent reports how many of t's Reviews were handed out (0 without Reviews); past
// len(Reviews) they repeat.
func (t Target) Sent() uint64 {
	if t.next == nil {
		return 0
	}
	return t.next.Load()
}

// review is the body of t's next request.
func (t Target) review(fallback *webhooktest.Review) *webhooktest.Review {
	if len(t.Reviews) == 0 || t.next == nil {
		return fallback
	}
	return t.Reviews[(t.next.Add(1)-1)%uint64(len(t.Reviews))]
}

// Phase names of a Result.
const (
	ClosedLoop = "closed"
	OpenLoop   = "open"
)

// Result is one phase against one target. Latencies are in milliseconds; in the
// open loop they run from each request's scheduled send time, so a stalled server
// is charged for the requests queued behind it (no coordinated omission).
type Result struct {
	Target      string  `json:"target"`
	Phase       string  `json:"phase"`
	Concurrency int     `json:"concurrency,omitempty"`
	TargetRate  float64 `json:"targetRate,omitempty"`
	Seconds     float64 `json:"seconds"`
	Requests    int     `json:"requests"`
	Errors      int     `json:"errors"`
	FirstError  string  `json:"firstError,omitempty"`
	RPS         float64 `json:"rps"`
	P50         float64 `json:"p50ms"`
	P90         float64 `json:"p90ms"`
	P99         float64 `json:"p99ms"`
	Max         float64 `json:"maxms"`
}

// recorder collects the outcome of each request of one phase.
type recorder struct {
	mu       sync.Mutex
	lat      []time.Duration
	errors   int
	firstErr string
}

func (r *recorder) add(lat []time.Duration, errs int, first string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lat = append(r.lat, lat...)
	r.errors += errs
	if r.firstErr == "" {
		r.firstErr = first
	}
}

func (r *recorder) result(t Target, phase string, elapsed time.Duration) Result {
	sort.Slice(r.lat, func(i, j int) bool { return r.lat[i] < r.lat[j] })
	n := len(r.lat)
	res := Result{Target: t.Name, Phase: phase, Seconds: elapsed.Seconds(), Requests: n, Errors: r.errors, FirstError: r.firstErr}
	if elapsed > 0 {
		res.RPS = float64(n-r.errors) / elapsed.Seconds()
	}
	res.P50, res.P90, res.P99 = ms(percentile(r.lat, 0.50)), ms(percentile(r.lat, 0.90)), ms(percentile(r.lat, 0.99))
	if n > 0 {
		res.Max = ms(r.lat[n-1])
	}
	return res
}

// percentile is the nearest-rank percentile of sorted.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func ms(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 }

// Load sends one review to one target at a time from many goroutines.
type Load struct {
	Client *http.Client
	Review *webhooktest.Review
	// DecodeEvery is how often an answer is decoded in full as an AdmissionReview:
	// every DecodeEvery-th one, the first, and any that fails the quick check. 0 or 1
	// decodes all. See Send.
	DecodeEvery int
	seq         atomic.Int64
	// bodies holds answer buffers (*bytes.Buffer) for reuse: io.ReadAll grows a
	// fresh one from 512 bytes for every answer, about ten allocations and copies
	// for meshguard's 7 KB against one for the no-op's 80 bytes, another cost of
	// the client that the comparison would charge to the webhook.
	bodies sync.Pool
}

// Send posts t's next review (see Target.Reviews) with a fresh uid and checks that
// the answer is an AdmissionReview for that uid that allows the request.
//
// The check is the load generator's own cost, on the same cores as the servers,
// and encoding/json scans a 7 KB answer (meshguard's warnings and rbac-preview
// annotation) at ~70 us against ~2 us for the no-op's 80 bytes: decoding every
// answer would charge the webhook for its client's parser. So every answer is
// checked by a byte search for the beginning of the response controller-runtime
// writes ({"uid":"<uid>","allowed":true), and one in DecodeEvery, the first one,
// and every answer that fails the search are decoded in full (the verdict then
// comes from the decoded answer).
func (l *Load) Send(ctx context.Context, t Target) error {
	n := l.seq.Add(1)
	uid := "loadtest-" + strconv.FormatInt(n, 10)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, bytes.NewReader(t.review(l.Review).Body(uid)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := l.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	buf, _ := l.bodies.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	defer l.bodies.Put(buf)
	buf.Reset()
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return err
	}
	body := buf.Bytes()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	if l.DecodeEvery > 1 && n%int64(l.DecodeEvery) != 1 && bytes.Contains(body, []byte(`"response":{"uid":"`+uid+`","allowed":true`)) {
		return nil
	}
	return checkAnswer(body, uid)
}

// checkAnswer decodes an answer in full and checks its uid and verdict.
func checkAnswer(body []byte, uid string) error {
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &out); err != nil {
		return fmt.Errorf("response is not an AdmissionReview: %v", err)
	}
	switch {
	case out.Response == nil:
		return fmt.Errorf("AdmissionReview without response")
	case string(out.Response.UID) != uid:
		return fmt.Errorf("response uid %q, want %q", out.Response.UID, uid)
	case !out.Response.Allowed:
		return fmt.Errorf("request denied: %.200s", body)
	}
	return nil
}

// Warm opens up to conns keep-alive connections to t (conns requests in flight,
// twice over) and is not measured. An API server that calls a webhook steadily
// keeps its connections open; a phase that finds fewer idle connections than it
// has senders (the transport drops idle ones after a minute, and the previous
// phase of the same target may be minutes back) would measure TLS handshakes.
func (l *Load) Warm(ctx context.Context, t Target, conns int) {
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			for range 2 {
				_ = l.Send(ctx, t)
			}
		})
	}
	wg.Wait()
}

// Closed runs the closed loop: concurrency senders, each sending its next request
// when the previous one is answered, for d or until maxRequests were sent.
func (l *Load) Closed(ctx context.Context, t Target, concurrency int, d time.Duration, maxRequests int) Result {
	ctx, cancel := context.WithTimeout(ctx, d+l.Client.Timeout)
	defer cancel()
	rec := &recorder{}
	var sent atomic.Int64
	start := time.Now()
	end := start.Add(d)
	var wg sync.WaitGroup
	for range concurrency {
		wg.Go(func() {
			var lat []time.Duration
			errs, first := 0, ""
			for time.Now().Before(end) && sent.Add(1) <= int64(maxRequests) && ctx.Err() == nil {
				t0 := time.Now()
				if err := l.Send(ctx, t); err != nil {
					errs++
					if first == "" {
						first = err.Error()
					}
				}
				lat = append(lat, time.Since(t0))
			}
			rec.add(lat, errs, first)
		})
	}
	wg.Wait()
	res := rec.result(t, ClosedLoop, time.Since(start))
	res.Concurrency = concurrency
	return res
}

// Open runs the open loop: rate requests per second for d (rate·d requests in all),
// each due at its slot of a fixed schedule and sent by the first free of workers
// senders. Latency is measured from the slot, not from the actual send.
func (l *Load) Open(ctx context.Context, t Target, rate float64, d time.Duration, workers int) Result {
	n := int(rate * d.Seconds())
	interval := time.Duration(float64(time.Second) / rate)
	ctx, cancel := context.WithTimeout(ctx, d+l.Client.Timeout)
	defer cancel()
	due := make(chan time.Time, n)
	rec := &recorder{}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var lat []time.Duration
			errs, first := 0, ""
			for at := range due {
				err := ctx.Err()
				if err == nil {
					err = l.Send(ctx, t)
				}
				if err != nil {
					errs++
					if first == "" {
						first = err.Error()
					}
				}
				lat = append(lat, time.Since(at))
			}
			rec.add(lat, errs, first)
		})
	}
	start := time.Now()
	for i := range n {
		at := start.Add(time.Duration(i) * interval)
		if wait := time.Until(at); wait > 0 {
			time.Sleep(wait)
		}
		due <- at
	}
	close(due)
	wg.Wait()
	res := rec.result(t, OpenLoop, time.Since(start))
	res.TargetRate = rate
	return res
}
