package webhook

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	admissionregv1 "k8s.io/api/admissionregistration/v1"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// startServing runs a ServingServer with a /fast handler and a /slow one that
// answers when release is closed; it returns a keep-alive client, the base URL,
// the draining switch, a stop function and Start's result.
func startServing(t *testing.T, release chan struct{}, slowStarted chan struct{}) (*http.Client, string, *atomic.Bool, context.CancelFunc, chan error) {
	t.Helper()
	dir := t.TempDir()
	pool := writeServingCert(t, dir)
	port := freePort(t)
	var draining atomic.Bool
	srv := &ServingServer{Host: "127.0.0.1", Port: port, CertDir: dir, ShutdownTimeout: 10 * time.Second,
		TLSOpts: tlsOptions(Options{}), Draining: &draining, Log: logr.Discard()}
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

// TestSelfCheckPolicies sends --fail-open-until-ready's self-check through the
// product's server and handlers, trusting only the caBundle: the good MeshTimeout
// is mutated, the bad one denied with MG102; without a caBundle or with another
// CA the check fails.
func TestSelfCheckPolicies(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	writeServingCert(t, dir)
	writeServingCert(t, other)
	port := freePort(t)
	srv := &ServingServer{Host: "127.0.0.1", Port: port, CertDir: dir, ShutdownTimeout: 5 * time.Second, TLSOpts: tlsOptions(Options{}), Log: logr.Discard()}
	for path, h := range Routes(testEngine(), NewBodyLimiter(BodyLimits{})) {
		srv.Register(path, h)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = srv.Start(ctx) }()
	for check, deadline := srv.StartedChecker(), time.Now().Add(10*time.Second); check(nil) != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("server not started")
		}
	}
	ca, err := os.ReadFile(filepath.Join(dir, "tls.crt"))
	if err != nil {
		t.Fatal(err)
	}
	otherCA, err := os.ReadFile(filepath.Join(other, "tls.crt"))
	if err != nil {
		t.Fatal(err)
	}
	f := &failOpen{client: selfCheckClient}
	cc := func(path string, ca []byte) admissionregv1.WebhookClientConfig {
		url := fmt.Sprintf("https://localhost:%d%s", port, path)
		return admissionregv1.WebhookClientConfig{URL: &url, CABundle: ca}
	}
	resp, err := f.review(ctx, cc(MutatePath, ca), selfCheckPolicy(false))
	if err != nil || !resp.Allowed || len(resp.Patch) == 0 {
		t.Fatalf("good policy on %s: %+v, %v; want allowed with a patch", MutatePath, resp, err)
	}
	resp, err = f.review(ctx, cc(ValidatePath, ca), selfCheckPolicy(true))
	if err != nil || resp.Allowed || !strings.Contains(resp.Result.Message, "MG102") {
		t.Fatalf("bad policy on %s: %+v, %v; want denied with MG102", ValidatePath, resp, err)
	}
	for _, tc := range []struct {
		name string
		ca   []byte
		want string
	}{
		{"no caBundle", nil, "no caBundle"},
		{"another CA", otherCA, "certificate"},
	} {
		_, err := f.review(ctx, cc(MutatePath, tc.ca), selfCheckPolicy(false))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// TestEndpoint: where the self-check sends a clientConfig's requests.
func TestEndpoint(t *testing.T) {
	url, port, path := "https://localhost:9443/validate", int32(8443), "/mutate"
	for _, tc := range []struct {
		cc   admissionregv1.WebhookClientConfig
		want string
	}{
		{admissionregv1.WebhookClientConfig{URL: &url}, url},
		{admissionregv1.WebhookClientConfig{Service: &admissionregv1.ServiceReference{Namespace: "ns", Name: "svc"}}, "https://svc.ns.svc:443"},
		{admissionregv1.WebhookClientConfig{Service: &admissionregv1.ServiceReference{Namespace: "ns", Name: "svc", Port: &port, Path: &path}}, "https://svc.ns.svc:8443/mutate"},
	} {
		if got, err := endpoint(tc.cc); err != nil || got != tc.want {
			t.Errorf("endpoint(%+v) = %q, %v; want %q", tc.cc, got, err, tc.want)
		}
	}
	if _, err := endpoint(admissionregv1.WebhookClientConfig{}); err == nil {
		t.Error("a clientConfig without url or service gave no error")
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
