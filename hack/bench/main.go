// Command bench is meshguard's one measurement harness: every figure in
// docs/performance.md comes from one of its subcommands. They share the servers,
// certificates and report lines of package kit, so two measurements that are
// compared start their servers the same way.
//
//	go run ./hack/bench apilatency [-n 200] [-blocks 5] ...  # kubectl apply latency over a no-op webhook (real API server)
//	go run ./hack/bench audit [-policies 10000] [-runs 3] ...  # meshguard audit of a cluster storing many policies
//	go run ./hack/bench load [-duration 5s] [-json] ...        # loopback AdmissionReview throughput and latency
//	go run ./hack/bench attack [-attack all|slowbody|idle|large] # hostile loads beside a legitimate caller
//	go run ./hack/bench mem [-stalled 40] [-large 3] ...      # the server's peak RSS under hostile requests
//	go run ./hack/bench lint [--rounds 5]                      # meshguard lint against kubeconform, one file
//	go run ./hack/bench startup [--rounds 20]                  # one small file: start-up against kubeconform
//	go run ./hack/bench growth [--sizes "1000 10000"]          # lint's CPU and peak RSS as the input grows
//	go run ./hack/bench inspect [-sizes "500 5000 20000"] ...   # inspect of every proxy, beside Kuma's rules code (needs bin/meshguard)
//	go run ./hack/bench inspect-one [N]                         # inspect of one proxy among N (needs bin/meshguard)
//	go run ./hack/bench map [N [SHAPE]]                          # meshguard map of N workloads, N/2 policies or a Linkerd mesh (SHAPE linkerd; needs bin/meshguard)
//	go run ./hack/bench maphtml [-workloads 2000] [-runs 5]     # the HTML access map page in headless Chromium: time to interactive
//
// Run from the repository (the shell measurements find it from the current
// directory). Exit codes: 0 done, 1 the measurement failed (or, for attack, a goal
// was missed), 2 a wrong invocation.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/meshguard/meshguard/hack/bench/apilatency"
	"github.com/meshguard/meshguard/hack/bench/attack"
	"github.com/meshguard/meshguard/hack/bench/auditload"
	"github.com/meshguard/meshguard/hack/bench/inspectscale"
	"github.com/meshguard/meshguard/hack/bench/kit"
	"github.com/meshguard/meshguard/hack/bench/load"
	"github.com/meshguard/meshguard/hack/bench/maphtml"
	"github.com/meshguard/meshguard/hack/bench/mem"
)

// command is one measurement: its name on the command line, what it measures
// (for the usage text) and how it runs.
type command struct {
	name, summary string
	run           func(args []string, stdout io.Writer) error
}

// commands lists the measurements in the order the usage text shows them.
func commands() []command {
	return []command{
		{"apilatency", "the latency meshguard adds to kubectl apply through a real API server, next to a no-op webhook", apilatency.Main},
		{"audit", "meshguard audit of a local control plane storing many policies", auditload.Main},
		{"load", "AdmissionReviews/s and latency of meshguard's handlers next to a no-op webhook, on loopback", load.Main},
		{"attack", "issue 27's hostile loads (slow bodies, idle connections, large reviews) beside a legitimate caller", attack.Main},
		{"mem", "the server's peak RSS under hostile concurrent requests", mem.Main},
		{"lint", "meshguard lint against kubeconform on one file (hack/bench/lint-vs-kubeconform.sh)", script("lint-vs-kubeconform.sh")},
		{"startup", "start-up on one small file against kubeconform (hack/bench/startup-vs-kubeconform.sh)", script("startup-vs-kubeconform.sh")},
		{"growth", "lint's CPU time and peak RSS from 1k to 100k documents (hack/bench/lint-growth.sh)", script("lint-growth.sh")},
		{"inspect", "meshguard inspect of every proxy (500 to 20k, 2,000 policies): CPU and peak RSS, beside Kuma's own rules code (hack/bench/kumapeer)", inspectscale.Main},
		{"inspect-one", "meshguard inspect's time and peak RSS for one proxy of a generated mesh of N (hack/bench/inspect-scale.sh)", script("inspect-scale.sh")},
		{"map", "meshguard map's CPU and peak RSS for N workloads and N/2 MeshTrafficPermissions, or a Linkerd mesh of N workloads (SHAPE linkerd; hack/bench/map-scale.sh)", script("map-scale.sh")},
		{"maphtml", "the HTML access map page of a generated 2,000-workload map in headless Chromium: time until interactive", maphtml.Main},
	}
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run runs the subcommand args name and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(args[1:], stdout)
		var usageErr kit.UsageError
		switch {
		case err == nil, errors.Is(err, flag.ErrHelp):
			return 0
		case errors.As(err, &usageErr):
			fmt.Fprintf(stderr, "bench %s: %v\n", c.name, err)
			return 2
		}
		fmt.Fprintf(stderr, "bench %s: %v\n", c.name, err)
		var exit *scriptExit
		if errors.As(err, &exit) {
			return exit.code
		}
		return 1
	}
	fmt.Fprintf(stderr, "bench: unknown measurement %q\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: go run ./hack/bench MEASUREMENT [flags]   (MEASUREMENT -h for its flags)")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s  %s\n", c.name, c.summary)
	}
}
