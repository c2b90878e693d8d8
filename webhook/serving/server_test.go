package serving

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/meshguard/meshguard/webhook/serving/servingtest"
)

// startServing runs a Server with a /fast handler and a /slow one that
// answers when release is closed; it returns a keep-alive client, the base URL,
// the draining switch, a stop function and Start's result.
func startServing(t *testing.T, release chan struct{}, slowStarted chan struct{}) (*http.Client, string, *atomic.Bool, context.CancelFunc, chan error) {
	t.Helper()
	dir := t.TempDir()
	pool := servingtest.WriteCert(t, dir)
	port := servingtest.FreePort(t)
	var draining atomic.Bool
	srv := &Server{Host: "127.0.0.1", Port: port, CertDir: dir, ShutdownTimeout: 10 * time.Second,
		TLSOpts: TLSOptions(false), Draining: &draining, Log: logr.Discard()}
	srv.Register("/fast", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "fast") }))
	srv.Register("/slow", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(slowStarted)
		<-release
		fmt.Fprint(w, "slow")
	}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	t.Cleanup(func() { cancel() })
	check := srv.StartedChecker()
	deadline := time.Now().Add(10 * time.Second)
	for check(nil) != nil {
		if time.Now().After(deadline) {
			t.Fatalf("server not started: %v", check(nil))
		}
		time.Sleep(20 * time.Millisecond)
	}
	c := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	return c, fmt.Sprintf("https://127.0.0.1:%d", port), &draining, cancel, done
}

// get fetches url and reports whether the connection was a reused one and
// whether the server asked to close it.
func get(t *testing.T, c *http.Client, url string) (body string, reused, closed bool) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }}))
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b), reused, resp.Close
}

// TestServingDrain: keep-alive connections are reused while serving; once
// draining, every answer closes its connection (so clients move to new ones),
// also one to a request that arrived before; on stop, new connections are refused while a request in flight completes.
func TestServingDrain(t *testing.T) {
	release, slowStarted := make(chan struct{}), make(chan struct{})
	c, base, draining, stop, done := startServing(t, release, slowStarted)
	get(t, c, base+"/fast")
	if _, reused, closed := get(t, c, base+"/fast"); !reused || closed {
		t.Fatalf("before draining: reused %t, closed %t; want a kept-alive connection", reused, closed)
	}
	if !requestsCounted(t, "/fast") {
		t.Error("controller_runtime_webhook_requests_total has no /fast series: handlers are not instrumented")
	}
	draining.Store(true)
	if body, _, closed := get(t, c, base+"/fast"); body != "fast" || !closed {
		t.Fatalf("draining: body %q, connection close %t; want an answer that closes its connection", body, closed)
	}
	if _, reused, closed := get(t, c, base+"/fast"); reused || !closed {
		t.Fatalf("draining: reused %t, closed %t; want a new connection, closed again", reused, closed)
	}
	// A request that arrives before SIGTERM and is answered after it closes its
	// connection too.
	draining.Store(false)
	slow := make(chan string, 1)
	go func() {
		resp, err := c.Get(base + "/slow")
		if err != nil {
			slow <- "error: " + err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		slow <- fmt.Sprintf("%s, close %t", b, resp.Close)
	}()
	<-slowStarted
	draining.Store(true)
	stop()
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn, err := tls.Dial("tcp", strings.TrimPrefix(base, "https://"), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // reachability only
		if err != nil {
			break
		}
		conn.Close()
		if time.Now().After(deadline) {
			t.Fatal("the server still accepts connections after stop")
		}
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("Start returned (%v) while a request was in flight", err)
	default:
	}
	close(release)
	if got := <-slow; got != "slow, close true" {
		t.Fatalf("request in flight at stop: got %q, want its answer", got)
	}
	if err := <-done; err != nil {
		t.Fatalf("Start: %v", err)
	}
}

// TestServingStopLeavesIdleConnections: after stop the server does not close an
// idle keep-alive connection under its client (which may be sending on it at that
// moment): a request on it is answered, with Connection: close, and only then does
// Start return.
func TestServingStopLeavesIdleConnections(t *testing.T) {
	c, base, _, stop, done := startServing(t, make(chan struct{}), make(chan struct{}))
	get(t, c, base+"/fast")
	stop()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		conn, err := tls.Dial("tcp", strings.TrimPrefix(base, "https://"), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // reachability only
		if err != nil {
			break
		}
		conn.Close()
		if time.Now().After(deadline) {
			t.Fatal("the server still accepts connections after stop")
		}
	}
	select {
	case err := <-done:
		t.Fatalf("Start returned (%v) with a client's idle connection open", err)
	default:
	}
	body, reused, closed := get(t, c, base+"/fast")
	if body != "fast" || !reused || !closed {
		t.Fatalf("request on the idle connection after stop: body %q, reused %t, closed %t; want an answer on it that closes it", body, reused, closed)
	}
	if err := <-done; err != nil {
		t.Fatalf("Start: %v", err)
	}
}

// requestsCounted reports whether controller-runtime's request counter has a
// series for path.
func requestsCounted(t *testing.T, path string) bool {
	t.Helper()
	mfs, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "controller_runtime_webhook_requests_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "webhook" && l.GetValue() == path && m.GetCounter().GetValue() > 0 {
					return true
				}
			}
		}
	}
	return false
}
