package apilatency

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/rest"
)

// report prints each configuration's distribution and what the webhooks add to it.
func report(w io.Writer, lat map[config][]time.Duration) {
	fmt.Fprintf(w, "| webhooks | applies | p50 ms | p90 ms | p99 ms | max ms |\n| --- | --- | --- | --- | --- | --- |\n")
	p := map[config][4]float64{}
	for _, cfg := range order() {
		p[cfg] = percentiles(lat[cfg])
		q := p[cfg]
		fmt.Fprintf(w, "| %s | %d | %.2f | %.2f | %.2f | %.2f |\n", cfg, len(lat[cfg]), q[0], q[1], q[2], q[3])
	}
	fmt.Fprintln(w)
	for _, d := range []struct {
		what     string
		of, base config
	}{
		{"the no-op webhooks add", withNoop, absent},
		{"meshguard adds", withMeshguard, absent},
		{"meshguard adds over the no-op webhooks", withMeshguard, withNoop},
	} {
		fmt.Fprintf(w, "%s %.2f ms at p50, %.2f ms at p99\n", d.what, p[d.of][0]-p[d.base][0], p[d.of][2]-p[d.base][2])
	}
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
func handlerTime(w io.Writer, port int) {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
	if err != nil {
		fmt.Fprintln(os.Stderr, "metrics:", err)
		return
	}
	defer resp.Body.Close()
	printMeans(w, resp.Body, "controller_runtime_webhook_latency_seconds", "meshguard's handler")
}

// webhookCallTime prints the mean time the API server spent per call of each
// webhook (meshguard's and the no-op server's), from its own admission metrics:
// the handler's time plus the request and answer on the wire (TLS, encoding the
// review, decoding the answer). Its counts also show whether a mutating webhook
// was called more than once per apply (reinvocation).
func webhookCallTime(w io.Writer, cfg *rest.Config) {
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
	printMeans(w, resp.Body, "apiserver_admission_webhook_admission_duration_seconds", "API server's call of")
}

// printMeans prints count and mean (in ms) of each series of the histogram
// metric in a Prometheus text exposition.
func printMeans(w io.Writer, r io.Reader, metric, what string) {
	b, err := io.ReadAll(r)
	if err != nil {
		fmt.Fprintln(os.Stderr, "metrics:", err)
		return
	}
	sums := scrape(strings.NewReader(string(b)), metric+"_sum")
	counts := scrape(strings.NewReader(string(b)), metric+"_count")
	for _, labels := range slices.Sorted(maps.Keys(counts)) {
		if n := counts[labels]; n > 0 {
			fmt.Fprintf(w, "%s %s: %.0f calls, mean %.2f ms\n", what, labels, n, sums[labels]/n*1000)
		}
	}
}

// scrape returns the value of each series of metric (by its label set) in a
// Prometheus text exposition.
func scrape(r io.Reader, metric string) map[string]float64 {
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	prefix := metric + "{"
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		labels, value, _ := strings.Cut(strings.TrimPrefix(line, prefix), "} ")
		v, _ := strconv.ParseFloat(value, 64)
		out[labels] = v
	}
	return out
}
