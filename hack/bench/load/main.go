// Package load is `bench load`, meshguard's loopback load benchmark (issue 4): it starts, in
// this process, two controller-runtime webhook servers on 127.0.0.1 with a
// generated certificate — meshguard's validating handler with the RBAC preview over
// a cluster of stored MeshTrafficPermissions, and a no-op handler — and sends them
// AdmissionReviews of a MeshTrafficPermission over keep-alive HTTPS/1.1, shaped as
// the API server sends them. meshguard is measured two ways, each next to the
// no-op receiving the same requests:
//
//   - a CREATE of a new policy per request, from a pool encoded beforehand (-unique
//     of them, round-robin): the target of issue 14, ≥ 1,000 reviews/s;
//   - an unchanged object re-applied: an UPDATE whose object equals its oldObject,
//     as GitOps reconciles and re-run applies send (two objects to decode).
//
// Both servers are served by controller-runtime's admission.Webhook, as
// `meshguard serve` serves its handlers; every request is answered afresh.
//
// Per target it runs a closed loop (fixed concurrency, fixed duration: throughput)
// and an open loop (fixed rate, latency from the scheduled send time), then prints
// a markdown table, or JSON with -json. Every phase is bounded in count and time;
// the servers stop with the command.
//
// `bench attack` runs the hostile loads of issue 27 instead (package attack).
//
//	go run ./hack/bench load [-concurrency 8] [-duration 5s] [-rate 1000] [-unique 16384] [-jitter 3s] [-json] [-cpuprofile f] [-memprofile f]
package load

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/meshguard/meshguard/hack/bench/kit"
	"github.com/meshguard/meshguard/webhook"
	"github.com/meshguard/meshguard/webhook/webhooktest"
)

// Names of the targets in the report. Each meshguard target is compared with the
// no-op receiving the same requests.
const (
	noopCreate  = "no-op webhook (CREATE)"
	noopUpdate  = "no-op webhook (unchanged UPDATE)"
	mgUnchanged = "meshguard /validate: unchanged object re-applied (UPDATE)"
	mgUnique    = "meshguard /validate: CREATE of a new policy per request"
)

type flags struct {
	concurrency, workers, maxRequests, warmup, unique int
	decodeEvery                                       int
	duration, timeout                                 time.Duration
	rate                                              float64
	jsonOut                                           bool
	cpuprofile, memprofile                            string
	jitter                                            time.Duration
	// command is the invocation, for the report.
	command string
}

// Main runs `bench load` with its arguments, writing the report to stdout.
func Main(args []string, stdout io.Writer) error {
	var f flags
	fs := flag.NewFlagSet("bench load", flag.ContinueOnError)
	fs.IntVar(&f.concurrency, "concurrency", 8, "closed loop: requests in flight (connections) per target")
	fs.DurationVar(&f.duration, "duration", 5*time.Second, "length of each phase (closed and open loop) per target")
	fs.Float64Var(&f.rate, "rate", 1000, "open loop: scheduled requests per second")
	fs.IntVar(&f.workers, "workers", 64, "open loop: senders (and connections) available for scheduled requests")
	fs.IntVar(&f.maxRequests, "max-requests", 500000, "closed loop: at most this many requests per target")
	fs.IntVar(&f.warmup, "warmup", 500, "unrecorded requests per target before measuring")
	fs.IntVar(&f.unique, "unique", 16384, "distinct objects (encoded beforehand) the unique-object target sends round-robin")
	fs.IntVar(&f.decodeEvery, "decode-every", 64, "decode every n-th answer (and the first, and any failing the quick uid/allowed byte check) in full as an AdmissionReview; 1 decodes all")
	fs.DurationVar(&f.timeout, "timeout", 5*time.Second, "per-request timeout")
	fs.BoolVar(&f.jsonOut, "json", false, "print the report as JSON instead of markdown")
	fs.DurationVar(&f.jitter, "jitter", 3*time.Second, "before the phases, measure for this long how late the machine wakes a goroutine sleeping 1 ms (the floor under every p99; 0 skips it)")
	fs.StringVar(&f.cpuprofile, "cpuprofile", "", "write a CPU profile of the whole run (servers and load) to this file")
	fs.StringVar(&f.memprofile, "memprofile", "", "write a heap profile to this file after the phases (what the process keeps live: encoded requests, meshguard's caches)")
	if err := kit.Parse(fs, args); err != nil {
		return err
	}
	f.command = "go run ./hack/bench load " + strings.Join(args, " ")
	return run(f, stdout)
}

func run(f flags, stdout io.Writer) error {
	if f.concurrency < 1 || f.workers < 1 || f.rate <= 0 || f.duration <= 0 || f.maxRequests < 1 || f.unique < 1 {
		return fmt.Errorf("-concurrency, -workers, -rate, -duration, -max-requests and -unique must be positive")
	}
	ctrl.SetLogger(logr.Discard())
	// The whole run is bounded: for each of the 4 targets a warm-up and two phases
	// of at most -duration each (and -timeout for the last requests), plus slack.
	const targetCount = 4
	ctx, cancel := context.WithTimeout(context.Background(), (3*targetCount+1)*(f.duration+f.timeout)+f.jitter+time.Minute)
	defer cancel()

	dir, err := os.MkdirTemp("", "meshguard-loadgen-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	roots, err := kit.WriteCerts(dir)
	if err != nil {
		return err
	}
	create, err := webhooktest.NewReview()
	if err != nil {
		return err
	}
	update, err := webhooktest.NewUnchangedUpdate()
	if err != nil {
		return err
	}
	// Encoded before any server starts, so that generating them is not measured.
	reviews, err := webhooktest.NewReviews(f.unique)
	if err != nil {
		return err
	}
	eng, err := webhooktest.NewHandlers(webhooktest.StoredPolicies())
	if err != nil {
		return err
	}
	mgURL, err := kit.Serve(ctx, dir, webhook.ValidatePath, webhooktest.ControllerRuntime(eng.Validate))
	if err != nil {
		return err
	}
	noopURL, err := kit.Serve(ctx, dir, "/noop", webhooktest.ControllerRuntime(webhooktest.Noop))
	if err != nil {
		return err
	}
	// The meshguard targets are the same server (one engine), as in a cluster where
	// repeated and new objects arrive at the same webhook.
	one := func(r *webhooktest.Review) []*webhooktest.Review { return []*webhooktest.Review{r} }
	targets := []Target{
		Target{Name: noopCreate, URL: noopURL}.WithReviews(one(create)),
		Target{Name: noopUpdate, URL: noopURL}.WithReviews(one(update)),
		Target{Name: mgUnchanged, URL: mgURL}.WithReviews(one(update)),
		Target{Name: mgUnique, URL: mgURL}.WithReviews(reviews),
	}
	unique := targets[len(targets)-1]
	ld := &Load{Client: kit.NewClient(roots, max(f.concurrency, f.workers), f.timeout), Review: create, DecodeEvery: f.decodeEvery}
	for _, t := range targets {
		if err := ld.Send(ctx, t); err != nil {
			return fmt.Errorf("%s: first request: %w", t.Name, err)
		}
		if f.warmup > 0 {
			ld.Closed(ctx, t, f.concurrency, f.duration, f.warmup)
		}
	}

	rep, err := measure(ctx, f, ld, targets)
	if err != nil {
		return err
	}
	sent := unique.Sent()
	note := fmt.Sprintf("unique-object target: %d requests (warm-up included) over %d distinct objects", sent, len(reviews))
	if sent <= uint64(len(reviews)) {
		note += " — no object was sent twice"
	}
	rep.Notes = append(rep.Notes, note)
	if f.jsonOut {
		return kit.WriteJSON(stdout, rep)
	}
	fmt.Fprintf(stdout, "%s\n\n", rep.Machine)
	rep.Markdown(stdout)
	return nil
}

// measure runs the closed-loop and then the open-loop phase of every target,
// interleaved, with the profiles asked for, and judges the meshguard targets.
func measure(ctx context.Context, f flags, load *Load, targets []Target) (*Report, error) {
	if f.cpuprofile != "" {
		pf, err := os.Create(f.cpuprofile)
		if err != nil {
			return nil, err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return nil, err
		}
		defer pprof.StopCPUProfile()
	}
	rep := &Report{
		Command: f.command,
		Machine: machine(),
	}
	if f.jitter > 0 {
		j := MeasureJitter(f.jitter, time.Millisecond)
		rep.Jitter = &j
	}
	// Interleaved so that a change in background load hits all targets alike.
	// Each phase starts with as many warm connections as it has senders.
	for _, t := range targets {
		load.Warm(ctx, t, f.concurrency)
		rep.Results = append(rep.Results, load.Closed(ctx, t, f.concurrency, f.duration, f.maxRequests))
	}
	for _, t := range targets {
		load.Warm(ctx, t, f.workers)
		rep.Results = append(rep.Results, load.Open(ctx, t, f.rate, f.duration, f.workers))
	}
	if f.memprofile != "" {
		if err := writeHeapProfile(f.memprofile); err != nil {
			return nil, err
		}
	}
	rep.Judge(Pair{Target: mgUnchanged, Baseline: noopUpdate},
		Pair{Target: mgUnique, Baseline: noopCreate})
	return rep, nil
}

// machine describes where the numbers come from.
func machine() string {
	return fmt.Sprintf("%s, GOMAXPROCS %d, load average at start %s", kit.Machine(), runtime.GOMAXPROCS(0), kit.LoadAverage())
}

// writeHeapProfile writes the live heap, after a collection, to path.
func writeHeapProfile(path string) error {
	pf, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(pf); err != nil {
		pf.Close()
		return err
	}
	return pf.Close()
}
