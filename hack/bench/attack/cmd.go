package attack

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/meshguard/meshguard/hack/bench/kit"
)

// attackFlags are the flags of `bench attack`.
type attackFlags struct {
	kind, binary         string
	attackers, items     int
	duration, timeout    time.Duration
	slowInterval         time.Duration
	rate                 float64
	idleRequest, jsonOut bool
	serverArgs           string
}

// defaultAttackers are the sizes of issue 27's attacks.
func defaultAttackers() map[string]int { return map[string]int{SlowBody: 600, Idle: 11000, Large: 2} }

// Main is `bench attack`: it builds meshguard (or takes -meshguard), and
// for each attack asked for starts `meshguard serve --offline` on loopback with
// the chart's GOMEMLIMIT, runs the attack with a legitimate caller alongside,
// and reports the caller's latency and failures and the server's peak RSS
// against the goals. It exits 1 when a goal is missed.
//
//	go run ./hack/bench attack [-attack all|slowbody|idle|large] [-attackers n] [-duration 20s] [-rate 10] [-json]
func Main(args []string, stdout io.Writer) error {
	var f attackFlags
	fs := flag.NewFlagSet("bench attack", flag.ContinueOnError)
	fs.StringVar(&f.kind, "attack", "all", "attack to run: "+strings.Join(Kinds(), ", ")+" or all")
	fs.IntVar(&f.attackers, "attackers", 0, "connections (slowbody, idle) or clients (large); 0: the issue's sizes, 600, 11000 and 2")
	fs.DurationVar(&f.duration, "duration", 20*time.Second, "length of the legitimate caller's phase, once the attack is in place")
	fs.Float64Var(&f.rate, "rate", 10, "legitimate small reviews per second")
	fs.DurationVar(&f.timeout, "timeout", 5*time.Second, "the legitimate caller's timeout (the chart's timeoutSeconds)")
	fs.DurationVar(&f.slowInterval, "slow-interval", 2*time.Second, "slowbody: one byte per connection this often")
	fs.BoolVar(&f.idleRequest, "idle-request", true, "idle: each connection sends one request before idling (false: never sends one)")
	fs.IntVar(&f.items, "large-items", 26000, "large: from items of the MeshTrafficPermission sent (26,000: 2.9 MB)")
	fs.StringVar(&f.binary, "meshguard", "", "meshguard binary (default: go build ./cmd/meshguard)")
	fs.StringVar(&f.serverArgs, "server-args", "", "extra flags for meshguard serve, space-separated")
	fs.BoolVar(&f.jsonOut, "json", false, "print JSON instead of markdown")
	if err := kit.Parse(fs, args); err != nil {
		return err
	}
	kinds := Kinds()
	if f.kind != "all" {
		kinds = []string{f.kind}
	}
	dir, err := os.MkdirTemp("", "meshguard-attack-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if f.binary == "" {
		if f.binary, err = kit.Build(dir); err != nil {
			return err
		}
	}
	var results []Result
	var missed []string
	for _, kind := range kinds {
		res, err := attackOnce(f, kind, dir)
		if err != nil {
			return fmt.Errorf("%s: %w", kind, err)
		}
		results = append(results, res)
		for _, m := range res.Failures(Goals{P99: time.Second, MaxRSSMiB: kit.ChartMemLimitMiB}) {
			missed = append(missed, kind+": "+m)
		}
	}
	if f.jsonOut {
		if err := kit.WriteJSON(stdout, results); err != nil {
			return err
		}
	} else {
		printAttacks(stdout, f, results)
	}
	if len(missed) > 0 {
		return fmt.Errorf("goals missed:\n  %s", strings.Join(missed, "\n  "))
	}
	return nil
}

// attackOnce runs one attack against a fresh server.
func attackOnce(f attackFlags, kind, dir string) (Result, error) {
	n := f.attackers
	if n == 0 {
		n = defaultAttackers()[kind]
	}
	o := Options{Kind: kind, Attackers: n, Duration: f.duration, Rate: f.rate, Timeout: f.timeout,
		SlowInterval: f.slowInterval, IdleRequest: f.idleRequest}
	if kind == Large {
		body, err := kit.LargeReview(f.items)
		if err != nil {
			return Result{}, err
		}
		o.LargeBody = body
	}
	ctx, cancel := context.WithTimeout(context.Background(), f.duration+3*time.Minute)
	defer cancel()
	certs := filepath.Join(dir, kind)
	if err := os.MkdirAll(certs, 0o700); err != nil {
		return Result{}, err
	}
	srv, err := kit.StartServer(ctx, f.binary, certs, strings.Fields(f.serverArgs)...)
	if err != nil {
		return Result{}, err
	}
	defer srv.Stop()
	o.Addr, o.Roots = srv.Addr, srv.Roots
	res, err := Run(ctx, o)
	if err != nil {
		return res, err
	}
	res.PeakRSSMiB, err = srv.PeakRSSMiB()
	return res, err
}

func printAttacks(w io.Writer, f attackFlags, results []Result) {
	fmt.Fprintf(w, "%s; server with GOMEMLIMIT %d MiB; legitimate reviews %g/s for %v, timeout %v\n\n",
		kit.Machine(), kit.ChartMemLimit>>20, f.rate, f.duration, f.timeout)
	fmt.Fprintln(w, "| attack | attackers | legit sent | failed | p50 ms | p99 ms | max ms | peak RSS MiB | attacker outcomes |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, r := range results {
		outcomes := r.Outcomes()
		if r.Kind == Idle {
			outcomes += fmt.Sprintf("; %d still open at the end", r.OpenAtEnd)
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %.1f | %.1f | %.1f | %.1f | %s |\n", r.Kind, r.Attackers, r.Legit.Requests, r.Legit.Errors,
			r.Legit.P50, r.Legit.P99, r.Legit.Max, r.PeakRSSMiB, outcomes)
	}
}
