// Package mem is `bench mem`: it measures meshguard's peak memory under hostile concurrent
// requests (issue 14): it builds and starts `meshguard serve --offline` on
// loopback TLS with the Go memory limit the chart sets (GOMEMLIMIT = 0.9 of the
// 256Mi container limit), then at once
//
//   - opens -stalled uploads that announce a 7 MiB AdmissionReview, send all but
//     its last KiB and stall;
//   - sends -errors validating reviews of a MeshTrafficPermission with -findings
//     errors each (a `from` item with an unknown action per error);
//   - sends -deep mutating reviews of a policy holding a value nested 9,990 deep;
//   - sends -large validating reviews of the valid 2.9 MB MeshTrafficPermission
//     of issue 27 (webhooktest.LargePolicy), one after the other;
//
// waits for every answer (the stalled uploads are cut off at the server's read
// timeout) and reports the server's peak RSS (VmHWM) with what each request got.
//
//	go run ./hack/bench mem [-stalled 40] [-errors 8] [-findings 8000] [-deep 5] [-large 0] [-schema-check never] [-json]
//
// The server is offline, so --schema-check auto runs the schema layer as always
// does; -schema-check never stands for a cluster whose installed CRDs are the
// embedded ones, where auto skips it.
package mem

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/hack/bench/kit"
	"github.com/meshguard/meshguard/webhook/webhooktest"
)

type flags struct {
	stalled, errors, findings, deep, large int
	binary, schemaCheck                    string
	jsonOut                                bool
}

// report is the outcome of a run.
type report struct {
	Machine     string         `json:"machine"`
	GoMemLimit  int64          `json:"goMemLimitBytes"`
	PeakRSSMiB  float64        `json:"peakRssMiB"`
	Statuses    map[string]int `json:"statuses"`
	Seconds     float64        `json:"seconds"`
	ServerFlags []string       `json:"serverFlags"`
}

// Main runs `bench mem` with its arguments, writing the report to stdout.
func Main(args []string, stdout io.Writer) error {
	var f flags
	fs := flag.NewFlagSet("bench mem", flag.ContinueOnError)
	fs.IntVar(&f.stalled, "stalled", 40, "stalled uploads announcing 7 MiB")
	fs.IntVar(&f.errors, "errors", 8, "validating reviews with -findings errors each")
	fs.IntVar(&f.findings, "findings", 8000, "errors per policy of -errors")
	fs.IntVar(&f.deep, "deep", 5, "mutating reviews of a deeply nested policy")
	fs.IntVar(&f.large, "large", 0, "validating reviews of the valid 2.9 MB MeshTrafficPermission, sent one after the other")
	fs.StringVar(&f.schemaCheck, "schema-check", "", "the server's --schema-check, when given (offline, its default auto runs the schema layer)")
	fs.StringVar(&f.binary, "meshguard", "", "meshguard binary (default: go build ./cmd/meshguard)")
	fs.BoolVar(&f.jsonOut, "json", false, "print JSON instead of markdown")
	if err := kit.Parse(fs, args); err != nil {
		return err
	}
	return run(f, stdout)
}

func run(f flags, stdout io.Writer) error {
	dir, err := os.MkdirTemp("", "meshguard-memload-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if f.binary == "" {
		if f.binary, err = kit.Build(dir); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var extra []string
	if f.schemaCheck != "" {
		extra = []string{"--schema-check", f.schemaCheck}
	}
	srv, err := kit.StartServer(ctx, f.binary, dir, extra...)
	if err != nil {
		return err
	}
	defer srv.Stop()
	roots := srv.Roots

	bodies, err := newBodies(f)
	if err != nil {
		return err
	}
	rep := &report{Machine: kit.Machine(),
		GoMemLimit: kit.ChartMemLimit, Statuses: map[string]int{}, ServerFlags: srv.Args}
	start := time.Now()
	var mu sync.Mutex
	count := func(what string) {
		mu.Lock()
		rep.Statuses[what]++
		mu.Unlock()
	}
	tlsConf := &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}
	var wg sync.WaitGroup
	for range f.stalled {
		wg.Go(func() { count("stalled upload: " + stalledUpload(srv.Addr, tlsConf)) })
	}
	time.Sleep(time.Second) // the uploads are under way
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{TLSClientConfig: tlsConf, MaxConnsPerHost: 64}}
	for i := range f.errors {
		wg.Go(func() { count("8,000 errors: " + post(client, "https://"+srv.Addr+"/validate", bodies.errors[i])) })
	}
	for i := range f.deep {
		wg.Go(func() { count("deep mutation: " + post(client, "https://"+srv.Addr+"/mutate", bodies.deep[i])) })
	}
	if f.large > 0 {
		wg.Go(func() {
			for range f.large {
				count("2.9 MB policy: " + post(client, "https://"+srv.Addr+"/validate", bodies.large))
			}
		})
	}
	wg.Wait()
	rep.Seconds = time.Since(start).Seconds()
	if rep.PeakRSSMiB, err = srv.PeakRSSMiB(); err != nil {
		return err
	}
	if f.jsonOut {
		return kit.WriteJSON(stdout, rep)
	}
	fmt.Fprintf(stdout, "%s; GOMEMLIMIT %d MiB; server %s\n\n", rep.Machine, rep.GoMemLimit>>20, strings.Join(rep.ServerFlags, " "))
	fmt.Fprintf(stdout, "| peak RSS | requests (answers) | seconds |\n|---:|---|---:|\n")
	var lines []string
	for k, v := range rep.Statuses {
		lines = append(lines, fmt.Sprintf("%d × %s", v, k))
	}
	sort.Strings(lines)
	fmt.Fprintf(stdout, "| %.1f MiB | %s | %.1f |\n", rep.PeakRSSMiB, strings.Join(lines, "; "), rep.Seconds)
	return nil
}

// bodies are the AdmissionReviews of the error and deep requests, encoded before
// the server is loaded.
type bodies struct {
	errors, deep [][]byte
	large        []byte
}

func newBodies(f flags) (*bodies, error) {
	b := &bodies{}
	for i := range f.errors {
		obj := webhooktest.IncomingPolicy()
		from := make([]any, f.findings)
		for j := range from {
			from[j] = map[string]any{"targetRef": map[string]any{"kind": string(api.RefMesh)}, "default": map[string]any{"action": "Bogus" + strconv.Itoa(j)}}
		}
		obj["spec"].(map[string]any)["from"] = from
		obj["metadata"].(map[string]any)["name"] = "errors-" + strconv.Itoa(i)
		r, err := webhooktest.NewReviewOf(obj)
		if err != nil {
			return nil, err
		}
		b.errors = append(b.errors, r.Body(fmt.Sprintf("errors-%d", i)))
	}
	if f.large > 0 {
		r, err := webhooktest.NewReviewOf(webhooktest.LargePolicy())
		if err != nil {
			return nil, err
		}
		b.large = r.Body("large")
	}
	deep := json.RawMessage(strings.Repeat(`{"a":`, 9990) + `1` + strings.Repeat(`}`, 9990))
	for i := range f.deep {
		obj := webhooktest.IncomingPolicy()
		obj["spec"].(map[string]any)["deep"] = deep
		obj["metadata"].(map[string]any)["name"] = "deep-" + strconv.Itoa(i)
		r, err := webhooktest.NewReviewOf(obj)
		if err != nil {
			return nil, err
		}
		b.deep = append(b.deep, r.Body(fmt.Sprintf("deep-%d", i)))
	}
	return b, nil
}

// stalledUpload announces a 7 MiB body, sends all but its last KiB, and waits for
// the answer (the server's read timeout); it returns the status line's code.
func stalledUpload(addr string, conf *tls.Config) string {
	const size = 7 << 20
	c, err := tls.Dial("tcp", addr, conf)
	if err != nil {
		return "dial error"
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /validate HTTP/1.1\r\nHost: meshguard\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", size)
	chunk := bytes.Repeat([]byte(" "), 64<<10)
	for sent := 0; sent < size-(1<<10); sent += len(chunk) {
		if _, err := c.Write(chunk[:min(len(chunk), size-(1<<10)-sent)]); err != nil {
			return "cut off while sending"
		}
	}
	_ = c.SetReadDeadline(time.Now().Add(time.Minute))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return "no answer"
	}
	resp.Body.Close()
	return strconv.Itoa(resp.StatusCode)
}

func post(client *http.Client, url string, body []byte) string {
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return "error"
	}
	defer resp.Body.Close()
	var rev struct {
		Response *struct {
			Allowed bool `json:"allowed"`
			Status  *struct {
				Code    int `json:"code"`
				Details *struct {
					Causes []json.RawMessage `json:"causes"`
				} `json:"details"`
			} `json:"status"`
			Patch []byte `json:"patch"`
		} `json:"response"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&rev); err != nil || rev.Response == nil {
		return strconv.Itoa(resp.StatusCode) + " without a review"
	}
	r := rev.Response
	switch {
	case r.Allowed && len(r.Patch) > 0:
		return "allowed with a patch"
	case r.Allowed:
		return "allowed"
	case r.Status != nil && r.Status.Details != nil:
		return fmt.Sprintf("denied %d with %d causes", r.Status.Code, len(r.Status.Details.Causes))
	default:
		return "denied"
	}
}
