// Command apilatency measures what meshguard adds to the latency of an apply through
// a real kube-apiserver: it starts the local control plane with meshguard installed
// from the chart (as the e2e suite does), server-side applies N new
// MeshTrafficPermissions with meshguard's webhook configurations present, removes
// them, applies N more on the same API server, and prints both latency
// distributions and their difference (docs/performance.md).
//
//	go run ./hack/apilatency -n 200
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/e2e/crds"
	"github.com/meshguard/meshguard/e2e/localcp"
)

// options are the command's flags.
type options struct {
	n      int
	warmup int
	dir    string
	// sameTarget makes every policy select the same proxies, so each preview merges
	// every policy stored before it; by default each selects its own app.
	sameTarget bool
}

func main() {
	var o options
	flag.IntVar(&o.n, "n", 200, "applies measured with the webhooks present, and again without them")
	flag.IntVar(&o.warmup, "warmup", 20, "applies before each measured phase, not counted")
	flag.StringVar(&o.dir, "dir", "", "directory for the control plane's files (default: a temporary one, removed)")
	flag.BoolVar(&o.sameTarget, "same-target", false, "every policy selects app=backend, so each RBAC preview merges all policies stored before it")
	flag.Parse()
	// The client's own logs are not part of the measurement.
	ctrllog.SetLogger(logr.Discard())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "apilatency:", err)
		os.Exit(1)
	}
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
	st, err := localcp.Up(ctx, localcp.StackOptions{Dir: o.dir, CRDs: installed, Log: os.Stderr})
	if err != nil {
		return err
	}
	defer st.Down()
	c := st.Client
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "latency-ns"}}); err != nil {
		return err
	}
	with, err := phase(ctx, c, "with", o)
	if err != nil {
		return err
	}
	handlerTime(st.Meshguard.MetricsPort)
	webhookCallTime(st.CP.Config)
	if err := removeWebhooks(ctx, c); err != nil {
		return err
	}
	without, err := phase(ctx, c, "without", o)
	if err != nil {
		return err
	}
	report(with, without)
	return nil
}

// phase applies warmup+n new policies and returns the latencies of the last n. In
// the "with" phase each stored object must carry the label meshguard's mutating
// webhook adds, so the measurement is known to include meshguard.
func phase(ctx context.Context, c client.Client, name string, o options) ([]time.Duration, error) {
	var out []time.Duration
	for i := range o.warmup + o.n {
		app := fmt.Sprintf("app-%d", i)
		if o.sameTarget {
			app = "backend"
		}
		obj := policy(fmt.Sprintf("lat-%s-%d", name, i), fmt.Sprintf("client-%d", i), app)
		start := time.Now()
		if err := c.Patch(ctx, obj, client.Apply, client.FieldOwner("apilatency"), client.ForceOwnership); err != nil {
			return nil, fmt.Errorf("%s phase, apply %d: %w", name, i, err)
		}
		d := time.Since(start)
		_, mutated := obj.GetLabels()[api.LabelPolicyRole]
		if mutated != (name == "with") {
			return nil, fmt.Errorf("%s phase, apply %d: meshguard's label present=%v", name, i, mutated)
		}
		if i >= o.warmup {
			out = append(out, d)
		}
	}
	return out, nil
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

// removeWebhooks deletes meshguard's webhook configurations and waits until the API
// server stops calling meshguard (a new object is stored without its label).
func removeWebhooks(ctx context.Context, c client.Client) error {
	var vw admissionregistrationv1.ValidatingWebhookConfigurationList
	var mw admissionregistrationv1.MutatingWebhookConfigurationList
	if err := c.List(ctx, &vw); err != nil {
		return err
	}
	if err := c.List(ctx, &mw); err != nil {
		return err
	}
	var objs []client.Object
	for i := range vw.Items {
		objs = append(objs, &vw.Items[i])
	}
	for i := range mw.Items {
		objs = append(objs, &mw.Items[i])
	}
	deleted := 0
	for _, o := range objs {
		if strings.Contains(o.GetName(), "meshguard") {
			if err := c.Delete(ctx, o); err != nil {
				return err
			}
			deleted++
		}
	}
	if deleted == 0 {
		return fmt.Errorf("no meshguard webhook configuration found")
	}
	for i := 0; ; i++ {
		probe := policy(fmt.Sprintf("lat-probe-%d", i), "probe", "probe")
		if err := c.Patch(ctx, probe, client.Apply, client.FieldOwner("apilatency"), client.ForceOwnership); err != nil {
			return err
		}
		if _, ok := probe.GetLabels()[api.LabelPolicyRole]; !ok {
			return nil
		}
		if i > 100 {
			return fmt.Errorf("the API server still calls meshguard after its configurations were deleted")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func report(with, without []time.Duration) {
	fmt.Printf("| webhooks | applies | p50 ms | p90 ms | p99 ms | max ms |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, r := range []struct {
		name string
		d    []time.Duration
	}{{"present", with}, {"absent", without}} {
		p := percentiles(r.d)
		fmt.Printf("| %s | %d | %.2f | %.2f | %.2f | %.2f |\n", r.name, len(r.d), p[0], p[1], p[2], p[3])
	}
	a, b := percentiles(with), percentiles(without)
	fmt.Printf("\nmeshguard adds %.2f ms at p50, %.2f ms at p99\n", a[0]-b[0], a[2]-b[2])
}

// percentiles returns p50, p90, p99 and the maximum, in milliseconds.
func percentiles(d []time.Duration) [4]float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	at := func(q float64) float64 {
		i := min(len(s)-1, int(q*float64(len(s))))
		return float64(s[i].Microseconds()) / 1000
	}
	return [4]float64{at(0.50), at(0.90), at(0.99), float64(s[len(s)-1].Microseconds()) / 1000}
}

// handlerTime prints the mean time meshguard's handlers took per review, from
// controller-runtime's webhook latency histogram: what of the added latency is
// meshguard's own work, and what the API server's webhook calls.
func handlerTime(port int) {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
	if err != nil {
		fmt.Fprintln(os.Stderr, "metrics:", err)
		return
	}
	defer resp.Body.Close()
	printMeans(resp.Body, "controller_runtime_webhook_latency_seconds", "handler")
}

// webhookCallTime prints the mean time the API server spent per call of each of
// meshguard's webhooks, from its own admission metrics: the handler's time plus
// the request and answer on the wire (TLS, encoding the review, decoding the
// answer). Its counts also show whether the mutating webhook was called more than
// once per apply (reinvocation).
func webhookCallTime(cfg *rest.Config) {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "API server metrics:", err)
		return
	}
	resp, err := hc.Get(strings.TrimSuffix(cfg.Host, "/") + "/metrics")
	if err != nil {
		fmt.Fprintln(os.Stderr, "API server metrics:", err)
		return
	}
	defer resp.Body.Close()
	printMeans(resp.Body, "apiserver_admission_webhook_admission_duration_seconds", "API server's call of")
}

// printMeans prints count and mean (in ms) of each series of the histogram
// metric in a Prometheus text exposition.
func printMeans(r io.Reader, metric, what string) {
	sums, counts := map[string]float64{}, map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		for suffix, m := range map[string]map[string]float64{"_sum": sums, "_count": counts} {
			prefix := metric + suffix + "{"
			if !strings.HasPrefix(line, prefix) {
				continue
			}
			labels, value, _ := strings.Cut(strings.TrimPrefix(line, prefix), "} ")
			v, _ := strconv.ParseFloat(value, 64)
			m[labels] = v
		}
	}
	keys := slices.Sorted(maps.Keys(counts))
	for _, labels := range keys {
		if n := counts[labels]; n > 0 {
			fmt.Printf("%s %s: %.0f calls, mean %.2f ms\n", what, labels, n, sums[labels]/n*1000)
		}
	}
}
