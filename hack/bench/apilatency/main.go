// Package apilatency is `bench apilatency`: it measures what meshguard adds to the latency of an apply through
// a real kube-apiserver. It starts the local control plane with meshguard installed
// from the chart (as the e2e suite does) and a no-op admission webhook (the peer:
// controller-runtime's server and codec, same TLS settings, answering "allowed"
// without looking), then server-side applies new MeshTrafficPermissions in three
// configurations of the same API server:
//
//   - absent: no webhook configuration at all;
//   - noop: meshguard's two webhook configurations, pointed at the no-op server;
//   - meshguard: meshguard's own configurations, as the chart installs them.
//
// The configurations alternate in blocks (each block runs all three, in a rotating
// order), so a drift of the machine or of the API server over the run (stored
// objects, caches, heap) falls on all three alike. After each switch the tool waits
// until the API server calls exactly the webhooks of the new configuration, then
// applies a few unmeasured policies. It prints each configuration's latency
// distribution and the differences at p50 and p99 (docs/performance.md).
//
//	go run ./hack/bench apilatency -n 200 -blocks 5
package apilatency

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/e2e/crds"
	"github.com/meshguard/meshguard/e2e/localcp"
	"github.com/meshguard/meshguard/hack/bench/kit"
)

// options are the command's flags.
type options struct {
	n      int
	blocks int
	warmup int
	dir    string
	// sameTarget makes every policy select the same proxies, so each preview merges
	// every policy stored before it; by default each selects its own app.
	sameTarget bool
	// pprof is meshguard's --pprof-bind-address, to profile it during the run.
	pprof string
	// stdout receives the report.
	stdout io.Writer
}

// Main runs `bench apilatency` with its arguments, writing the report to stdout
// and progress to standard error.
func Main(args []string, stdout io.Writer) error {
	o := options{stdout: stdout}
	fs := flag.NewFlagSet("bench apilatency", flag.ContinueOnError)
	fs.IntVar(&o.n, "n", 200, "applies measured in each configuration (absent, noop, meshguard)")
	fs.IntVar(&o.blocks, "blocks", 5, "blocks the applies of each configuration are split into; the configurations alternate block by block")
	fs.IntVar(&o.warmup, "warmup", 5, "unmeasured applies after each switch of configuration")
	fs.StringVar(&o.dir, "dir", "", "directory for the control plane's files (default: a temporary one, removed)")
	fs.BoolVar(&o.sameTarget, "same-target", false, "every policy selects app=backend, so each RBAC preview merges all policies stored before it")
	fs.StringVar(&o.pprof, "pprof", "", "serve meshguard's pprof profiles on this address during the run (e.g. 127.0.0.1:6060)")
	if err := kit.Parse(fs, args); err != nil {
		return err
	}
	if o.n < 1 || o.blocks < 1 || o.blocks > o.n || o.warmup < 0 {
		return kit.Usage(fmt.Errorf("need -n >= 1, 1 <= -blocks <= -n and -warmup >= 0"))
	}
	// The client's own logs are not part of the measurement.
	ctrllog.SetLogger(logr.Discard())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return run(ctx, o)
}

func run(ctx context.Context, o options) error {
	if o.dir == "" {
		d, err := os.MkdirTemp("", "meshguard-apilatency-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		o.dir = d
	}
	installed, err := crds.Installed(api.DefaultRegistry())
	if err != nil {
		return err
	}
	so := localcp.StackOptions{Dir: o.dir, CRDs: installed, Log: os.Stderr}
	if o.pprof != "" {
		so.ServeArgs = []string{"--pprof-bind-address", o.pprof}
	}
	st, err := localcp.Up(ctx, so)
	if err != nil {
		return err
	}
	defer st.Down()
	c := st.Client
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "latency-ns"}}); err != nil {
		return err
	}
	noop, err := startNoop(ctx, o.dir)
	if err != nil {
		return err
	}
	sw, err := newSwitcher(ctx, c, noop, st.Meshguard.MetricsPort)
	if err != nil {
		return err
	}
	lat, err := measure(ctx, c, sw, o)
	if err != nil {
		return err
	}
	report(o.stdout, lat)
	handlerTime(o.stdout, st.Meshguard.MetricsPort)
	webhookCallTime(o.stdout, st.CP.Config)
	return nil
}

// measure runs the blocks and returns the measured latencies per configuration.
func measure(ctx context.Context, c client.Client, sw *switcher, o options) (map[config][]time.Duration, error) {
	lat := map[config][]time.Duration{}
	seq := 0
	for b := range o.blocks {
		// Block b runs the configurations rotated by b, so none always follows another.
		cfgs := order()
		for k := range cfgs {
			cfg := cfgs[(b+k)%len(cfgs)]
			if err := sw.to(ctx, cfg); err != nil {
				return nil, fmt.Errorf("block %d, switching to %s: %w", b, cfg, err)
			}
			// Block b's share of n: the first n%blocks blocks take one more.
			count := o.n / o.blocks
			if b < o.n%o.blocks {
				count++
			}
			for i := range o.warmup + count {
				seq++
				d, err := apply(ctx, c, cfg, seq, o.sameTarget)
				if err != nil {
					return nil, fmt.Errorf("block %d, %s: %w", b, cfg, err)
				}
				if i >= o.warmup {
					lat[cfg] = append(lat[cfg], d)
				}
			}
		}
		fmt.Fprintf(os.Stderr, "apilatency: block %d of %d done\n", b+1, o.blocks)
	}
	return lat, nil
}

// apply server-side applies one new policy and returns how long the API server took
// to answer. The stored object must carry the label meshguard's mutating webhook
// adds exactly when meshguard is the configuration, so the measurement is known to
// include meshguard (and the others known not to).
func apply(ctx context.Context, c client.Client, cfg config, seq int, sameTarget bool) (time.Duration, error) {
	app := fmt.Sprintf("app-%d", seq)
	if sameTarget {
		app = "backend"
	}
	obj := policy(fmt.Sprintf("lat-%s-%d", cfg, seq), fmt.Sprintf("client-%d", seq), app)
	start := time.Now()
	if err := c.Patch(ctx, obj, client.Apply, client.FieldOwner("apilatency"), client.ForceOwnership); err != nil {
		return 0, fmt.Errorf("apply %d: %w", seq, err)
	}
	d := time.Since(start)
	if _, mutated := obj.GetLabels()[api.LabelPolicyRole]; mutated != (cfg == withMeshguard) {
		return 0, fmt.Errorf("apply %d: meshguard's label present=%v", seq, mutated)
	}
	return d, nil
}

// policy is a new workload-owner MeshTrafficPermission letting one client reach app.
func policy(name, clientService, app string) *unstructured.Unstructured {
	mtp := api.DefaultRegistry().MeshTrafficPermission()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": mtp.Group + "/" + mtp.Version,
		"kind":       mtp.Kind,
		"metadata":   map[string]any{"name": name, "namespace": "latency-ns"},
		"spec": map[string]any{
			"targetRef": map[string]any{"kind": string(api.RefDataplane), "labels": map[string]any{"app": app}},
			"from": []any{map[string]any{
				"targetRef": map[string]any{"kind": string(api.RefMeshSubset), "tags": map[string]any{"kuma.io/service": clientService}},
				"default":   map[string]any{"action": "Allow"},
			}},
		},
	}}
	return u
}
