// Package maphtml measures the HTML access map page (`meshguard map -o html`,
// package mapview) in headless Chromium: how long a generated map of N
// workloads takes from navigation until the page is interactive (matrix drawn
// and laid out, filters wired), and how long opening one namespace takes.
package maphtml

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/systeminfo"
	"github.com/chromedp/chromedp"

	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/hack/bench/kit"
	"github.com/meshguard/meshguard/internal/mapsynth"
	"github.com/meshguard/meshguard/mapview"
)

type options struct {
	workloads, namespaces, runs int
	chromium, out, mapFile      string
}

// Main runs the measurement: `go run ./hack/bench maphtml [-workloads 2000]`.
func Main(args []string, stdout io.Writer) error {
	o := options{}
	fs := flag.NewFlagSet("maphtml", flag.ContinueOnError)
	fs.IntVar(&o.workloads, "workloads", 2000, "workloads of the generated map (each a destination and a client)")
	fs.IntVar(&o.namespaces, "namespaces", 20, "namespaces they are spread over")
	fs.IntVar(&o.runs, "runs", 5, "page loads, each in a new tab of one browser")
	fs.StringVar(&o.chromium, "chromium", os.Getenv("MESHGUARD_CHROMIUM"), "the browser (default: chromium on PATH; bash hack/install-chromium.sh installs it)")
	fs.StringVar(&o.out, "out", "", "also keep the page in this file")
	fs.StringVar(&o.mapFile, "map", "", "the map to draw: the JSON of meshguard map -o json (default: a generated map of -workloads)")
	if err := kit.Parse(fs, args); err != nil {
		return err
	}
	if o.workloads < 1 || o.namespaces < 1 || o.namespaces > o.workloads || o.runs < 1 {
		return kit.Usage(errors.New("-workloads, -namespaces and -runs must be positive, with no more namespaces than workloads"))
	}
	if o.chromium == "" {
		p, err := exec.LookPath("chromium")
		if err != nil {
			return errors.New("no chromium on PATH: run bash hack/install-chromium.sh or pass -chromium")
		}
		o.chromium = p
	}
	m := mapsynth.Map(o.workloads, o.namespaces)
	if o.mapFile != "" {
		b, err := os.ReadFile(o.mapFile)
		if err != nil {
			return err
		}
		m = &access.Map{}
		if err := json.Unmarshal(b, m); err != nil {
			return fmt.Errorf("%s: %v", o.mapFile, err)
		}
	}
	start := time.Now()
	var page bytes.Buffer
	if err := mapview.WriteMap(&page, m); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "map: %d destinations, %d clients, %d cells; page %.1f MiB, written in %d ms\n",
		len(m.Destinations), len(m.Clients), len(m.Cells), float64(page.Len())/(1<<20), time.Since(start).Milliseconds())
	file := o.out
	if file == "" {
		dir, err := os.MkdirTemp("", "maphtml")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		file = filepath.Join(dir, "map.html")
	}
	if err := os.WriteFile(file, page.Bytes(), 0o644); err != nil {
		return err
	}
	return measure(o, "file://"+file, stdout)
}

// measure loads the page o.runs times in one headless Chromium and reports,
// per load, the page's own clock at interactive (performance.now(), from the
// start of navigation), the wall time from the navigation command, and the
// time to open the first namespace.
func measure(o options, url string, stdout io.Writer) error {
	// No sandbox: the page is a generated local file, and the sandbox cannot start
	// as root or where unprivileged user namespaces are forbidden.
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(o.chromium), chromedp.WindowSize(1280, 800), chromedp.NoSandbox)
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()
	if err := chromedp.Do(bctx); err != nil {
		return fmt.Errorf("starting %s: %w", o.chromium, err)
	}
	var ready, walls, cpus, opens []float64
	for i := range o.runs {
		r, err := load(bctx, url)
		if err != nil {
			return fmt.Errorf("load %d: %w", i+1, err)
		}
		fmt.Fprintf(stdout, "load %d: interactive at %.0f ms (page clock), %.0f ms wall from navigate, %.0f ms of Chromium CPU; opening a namespace %.0f ms\n",
			i+1, r.ready, r.wall, r.cpu, r.open)
		ready, walls, cpus, opens = append(ready, r.ready), append(walls, r.wall), append(cpus, r.cpu), append(opens, r.open)
	}
	fmt.Fprintf(stdout, "median of %d: interactive at %.0f ms (page clock), %.0f ms wall, %.0f ms of Chromium CPU; opening a namespace %.0f ms\n",
		o.runs, median(ready), median(walls), median(cpus), median(opens))
	return nil
}

// result is one page load's figures, in milliseconds.
type result struct{ ready, wall, cpu, open float64 }

// cpuTime is the CPU time all of Chromium's processes have used, in ms: on a
// busy machine, wall times grow with the other work and this does not.
func cpuTime(ctx context.Context) (float64, error) {
	info, err := chromedp.CallBrowser(ctx, systeminfo.GetProcessInfo, cdp.Empty{})
	if err != nil {
		return 0, err
	}
	var s float64
	for _, p := range info.ProcessInfo {
		s += p.CPUTime
	}
	return s * 1000, nil
}

func load(bctx context.Context, url string) (result, error) {
	var r result
	ctx, cancel := chromedp.NewContext(bctx)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		return r, err
	}
	tctx, tcancel := context.WithTimeout(ctx, time.Minute)
	defer tcancel()
	cpu0, err := cpuTime(tctx)
	if err != nil {
		return r, err
	}
	start := time.Now()
	if err := chromedp.Do(tctx, chromedp.Navigate(url)); err != nil {
		return r, err
	}
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`document.body.dataset.ready === 'true'`, chromedp.WithPollingTimeout(time.Minute))); err != nil {
		return r, err
	}
	r.wall = float64(time.Since(start).Microseconds()) / 1000
	cpu1, err := cpuTime(tctx)
	if err != nil {
		return r, err
	}
	r.cpu = cpu1 - cpu0
	ms, err := chromedp.Run(tctx, chromedp.Evaluate[string](`document.body.dataset.readyMs`))
	if err != nil {
		return r, err
	}
	if r.ready, err = strconv.ParseFloat(ms, 64); err != nil {
		return r, err
	}
	r.open, err = chromedp.Run(tctx, chromedp.Evaluate[float64](`(function () {
		var t = performance.now();
		document.querySelector('button[data-toggle]').click();
		void document.getElementById('matrix').offsetHeight;
		return performance.now() - t; })()`))
	return r, err
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
