// Package inspectscale is `go run ./hack/bench inspect`: `meshguard inspect` of
// every proxy of generated Universal inputs (500, 5,000 and 20,000 proxies with
// 2,000 policies of mixed kinds by default), the CPU time (user + system) and peak
// RSS of each run, and beside it, on the same input and in the same run, Kuma
// 2.14.3's own rules code (hack/bench/kumapeer) on the same proxies, for issue
// 29's budget: 5,000 proxies in < 10 s of CPU, and >= 10x less CPU per proxy than
// Kuma.
package inspectscale

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/meshguard/meshguard/hack/bench/kit"
)

// options are the measurement's flags.
type options struct {
	sizes            string
	policies         int
	binary, cacheDir string
	peer             bool
	peerMax          int
	kumaGit, gcpGit  string
	json             bool
}

// Main runs the measurement with args and writes its report to stdout.
func Main(args []string, stdout io.Writer) error {
	o := options{}
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.StringVar(&o.sizes, "sizes", "500 5000 20000", "the proxy counts to measure, space separated")
	fs.IntVar(&o.policies, "policies", 2000, "policies in every input")
	fs.StringVar(&o.binary, "binary", "bin/meshguard", "the meshguard binary to time (go build -o bin/ ./cmd/meshguard)")
	fs.StringVar(&o.cacheDir, "cache", ".cache/inspect-scale", "where the generated inputs are kept")
	fs.BoolVar(&o.peer, "peer", true, "also run Kuma's rules code (hack/bench/kumapeer) on each input")
	fs.IntVar(&o.peerMax, "peer-max", 50, "Kuma matches only the first N proxies of each input (its CPU is reported per proxy); 0: all")
	fs.StringVar(&o.kumaGit, "kuma-git", "/work/.mirror/kumahq+kuma/repo", "a git directory of kumahq/kuma holding tag v2.14.3 (a snapshot)")
	fs.StringVar(&o.gcpGit, "gcp-git", "/work/.mirror/kumahq+go-control-plane/repo", "a git directory of kumahq/go-control-plane holding Kuma's -kong-1 tags")
	if err := kit.Parse(fs, args); err != nil {
		return err
	}
	var sizes []int
	for _, f := range strings.Fields(o.sizes) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 10 {
			return kit.Usage(fmt.Errorf("-sizes: %q is not a proxy count of at least 10", f))
		}
		sizes = append(sizes, n)
	}
	var peer string
	if o.peer {
		var err error
		if peer, err = buildPeer(o); err != nil {
			return fmt.Errorf("Kuma's rules code: %w", err)
		}
	}
	fmt.Fprintf(stdout, "%s; load average %s; %s\n", kit.Machine(), kit.LoadAverage(), time.Now().UTC().Format(time.RFC3339))
	for _, n := range sizes {
		if err := o.measure(stdout, n, peer); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "load average %s\n", kit.LoadAverage())
	return nil
}

// measure writes (once) and times the input of n proxies.
func (o options) measure(stdout io.Writer, n int, peer string) error {
	shape := Shape{Proxies: n, Policies: o.policies}
	file, err := o.input(shape)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d proxies, %d MeshServices, %d policies (%s):\n", n, shape.services(), o.policies, file)
	for _, format := range []string{"text", "json"} {
		r, err := timed(o.binary, "inspect", "-o", format, file)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "  meshguard inspect -o %s (every proxy): %s, %.3f ms CPU per proxy\n", format, r, r.cpuMs()/float64(n))
	}
	if peer == "" {
		return nil
	}
	args := []string{file}
	if o.peerMax > 0 {
		args = []string{"-max", strconv.Itoa(o.peerMax), file}
	}
	r, err := timed(peer, args...)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "  %s  (process: %s)\n", strings.TrimSpace(r.stdout), r)
	return nil
}

// input is the generated file of shape under the cache directory, written when
// it is not there yet.
func (o options) input(shape Shape) (string, error) {
	file := filepath.Join(o.cacheDir, fmt.Sprintf("mesh-%d-%d.yaml", shape.Proxies, shape.Policies))
	if _, err := os.Stat(file); err == nil {
		return file, nil
	}
	if err := os.MkdirAll(o.cacheDir, 0o755); err != nil {
		return "", err
	}
	f, err := os.Create(file + ".tmp")
	if err != nil {
		return "", err
	}
	if err := shape.Write(f); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return file, os.Rename(file+".tmp", file)
}

// result is one timed process: wall time, user and system CPU, peak RSS.
type result struct {
	wall, user, sys time.Duration
	maxRSSKiB       int64
	stdout          string
}

func (r result) cpuMs() float64 { return float64((r.user + r.sys).Microseconds()) / 1000 }

func (r result) String() string {
	return fmt.Sprintf("%.2f s wall, %.2f s user + %.2f s sys, %d MiB peak RSS",
		r.wall.Seconds(), r.user.Seconds(), r.sys.Seconds(), r.maxRSSKiB/1024)
}

// timed runs binary with args, its output kept only for the peer's report line
// (meshguard's, megabytes of it, is discarded), and reads the process's rusage.
func timed(binary string, args ...string) (result, error) {
	cmd := exec.Command(binary, args...)
	var out strings.Builder
	if !strings.HasSuffix(binary, "meshguard") {
		cmd.Stdout = &out
	}
	cmd.Stderr = os.Stderr
	start := time.Now()
	err := cmd.Run()
	r := result{wall: time.Since(start), stdout: out.String()}
	if err != nil {
		return r, fmt.Errorf("%s %s: %w", binary, strings.Join(args, " "), err)
	}
	r.user, r.sys = cmd.ProcessState.UserTime(), cmd.ProcessState.SystemTime()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSSKiB = ru.Maxrss
	}
	return r, nil
}
