package serving

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"github.com/meshguard/meshguard/webhook/serving/servingtest"
)

// cappedServer runs a Server with the product's TLS settings, at most
// maxConns connections and the given header timeout, serving /fast (answers at
// once), /hold (answers when release is closed) and /body (reads the body through
// a BodyLimiter). It returns the server's address and a pool trusting it.
func cappedServer(t *testing.T, maxConns int, header time.Duration, release chan struct{}) (string, *x509.CertPool) {
	t.Helper()
	dir := t.TempDir()
	pool := servingtest.WriteCert(t, dir)
	port := servingtest.FreePort(t)
	srv := &Server{Host: "127.0.0.1", Port: port, CertDir: dir, ShutdownTimeout: time.Second,
		TLSOpts: TLSOptions(false), MaxConnections: maxConns, HeaderTimeout: header, Log: logr.Discard()}
	srv.Register("/fast", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "fast") }))
	srv.Register("/hold", NewBodyLimiter(BodyLimits{}).Wrap(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		<-release
		fmt.Fprint(w, "held")
	})))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(10 * time.Second)
	for !srv.started.Load() {
		if time.Now().After(deadline) {
			t.Fatal("server not started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return addr, pool
}

// closedByServer reports whether the server has closed c (a read sees EOF or a
// reset within wait).
func closedByServer(c net.Conn, wait time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(wait))
	var b [1]byte
	_, err := c.Read(b[:])
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	return err != nil
}

// TestConnectionCapEvictsIdleFirst fills a server capped at 6 connections with a
// request being answered, an idle keep-alive connection that served a request,
// and four TLS connections that never sent one; then a client connects: it is
// served, the oldest connection that never sent a request is closed to make room,
// and the busy and the idle keep-alive connection stay open. Without a cap all
// stay open and nothing is closed.
func TestConnectionCapEvictsIdleFirst(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	addr, pool := cappedServer(t, 6, 10*time.Second, release)
	conf := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}
	dial := func() *tls.Conn {
		c, err := tls.Dial("tcp", addr, conf)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	// A request being answered (its handler waits for release).
	busy := dial()
	fmt.Fprintf(busy, "POST /hold HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
	// A keep-alive connection that served a request and is idle now.
	keep := dial()
	fmt.Fprintf(keep, "GET /fast HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp, err := http.ReadResponse(bufio.NewReader(keep), nil); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("keep-alive request: %v %v", resp, err)
	}
	var silent []*tls.Conn
	for range 4 {
		silent = append(silent, dial())
		time.Sleep(20 * time.Millisecond) // distinct ages
	}
	time.Sleep(100 * time.Millisecond) // the server has seen every state change
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: conf}}
	defer client.CloseIdleConnections()
	resp, err := client.Get("https://" + addr + "/fast")
	if err != nil {
		t.Fatalf("a new client at the cap: %v", err)
	}
	resp.Body.Close()
	if !closedByServer(silent[0], time.Second) {
		t.Error("the oldest connection that never sent a request is still open at the cap")
	}
	for i, c := range silent[1:] {
		if closedByServer(c, 50*time.Millisecond) {
			t.Errorf("silent connection %d closed; only the oldest should be", i+1)
		}
	}
	if closedByServer(keep, 50*time.Millisecond) || closedByServer(busy, 50*time.Millisecond) {
		t.Error("a keep-alive or busy connection was evicted while a silent one was left")
	}
}

// TestConnectionCapNeverEvictsWork: with every connection of a capped server
// answering a request, a new connection is refused and the requests in flight
// are answered.
func TestConnectionCapNeverEvictsWork(t *testing.T) {
	release := make(chan struct{})
	addr, pool := cappedServer(t, 2, 10*time.Second, release)
	conf := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}
	var busy []*bufio.Reader
	for range 2 {
		c, err := tls.Dial("tcp", addr, conf)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /hold HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
		busy = append(busy, bufio.NewReader(c))
	}
	time.Sleep(200 * time.Millisecond)
	if c, err := tls.DialWithDialer(&net.Dialer{Timeout: 2 * time.Second}, "tcp", addr, conf); err == nil {
		c.Close()
		t.Error("a connection was admitted past the cap with every connection at work")
	}
	close(release)
	for i, r := range busy {
		if resp, err := http.ReadResponse(r, nil); err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("request %d in flight: %v %v", i, resp, err)
		}
	}
}

// TestSilentConnectionsCutAtHeaderTimeout: TCP connections that never start a
// TLS handshake, and TLS connections that never send a request, are closed at
// the header timeout (net/http's was 32 s).
func TestSilentConnectionsCutAtHeaderTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	const header = 500 * time.Millisecond
	addr, pool := cappedServer(t, 100, header, release)
	raw, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	tc, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	start := time.Now()
	for name, c := range map[string]net.Conn{"no handshake": raw, "no request": tc} {
		if !closedByServer(c, 5*time.Second) {
			t.Errorf("%s: still open after %v", name, time.Since(start))
		}
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("closed after %v, want about %v", d, header)
	}
}

// TestConnectionCapFromMemoryLimit: the chart's GOMEMLIMIT (0.9 × 256Mi) gives a
// cap that keeps connections to a quarter of it; no limit gives the default.
func TestConnectionCapFromMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		limit int64
		want  int
	}{
		{256 << 20 * 9 / 10, 921},
		{1 << 30, 4096},
		{16 << 20, minConnections},
		{0, DefaultMaxConnections},
		{1<<63 - 1, DefaultMaxConnections},
	} {
		if got := ConnectionCap(tc.limit); got != tc.want {
			t.Errorf("ConnectionCap(%d) = %d, want %d", tc.limit, got, tc.want)
		}
	}
}

// TestSlowBodyCutByRate sends a body a byte every 200 ms to a server with a 10 s
// read timeout: it is cut off with 408 after about the grace second (the rate
// allows 4 KiB by then), holding one 4 KiB chunk of budget meanwhile, not 64 KiB.
func TestSlowBodyCutByRate(t *testing.T) {
	srv, limiter := limitedServer(t, BodyLimits{ReadTimeout: 10 * time.Second})
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
	start := time.Now()
	var once sync.Once
	heldAtMost := int64(-1)
	stop := make(chan struct{})
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
			if _, err := c.Write([]byte(" ")); err != nil {
				return
			}
			if i == 2 { // mid-way: what the request holds
				once.Do(func() {
					if limiter.budget.TryAcquire(limiter.limits.Budget - firstChunk) {
						limiter.budget.Release(limiter.limits.Budget - firstChunk)
						heldAtMost = firstChunk
					}
				})
			}
		}
	}()
	defer close(stop)
	_ = c.SetReadDeadline(time.Now().Add(12 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	d := time.Since(start)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), "slower than") || d > 3*time.Second {
		t.Errorf("status %d %q after %v, want 408 for the rate after about 1 s", resp.StatusCode, b, d)
	}
	if heldAtMost != firstChunk {
		t.Error("a body of a few bytes held more than one 4 KiB chunk of budget")
	}
}

// TestSmallReviewsHaveTheirOwnLane: two large reviews, one being answered and one
// waiting for the whole large lane, do not hold up a small review, which is
// answered at once; a large review whose caller waits only 1 s (the API server's
// `timeout` parameter) gets 503 at that time and is never handed to the handler.
func TestSmallReviewsHaveTheirOwnLane(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	largeRuns := 0
	limiter := NewBodyLimiter(BodyLimits{WorkBudget: 1 << 20})
	srv := httptestServer(t, limiter.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > SmallRequestBytes {
			mu.Lock()
			largeRuns++
			mu.Unlock()
			<-release
		}
		fmt.Fprint(w, "done")
	})))
	client := &http.Client{Timeout: 5 * time.Second}
	large := strings.Repeat(" ", 40<<10)
	send := func(query, body string) (int, time.Duration) {
		start := time.Now()
		resp, err := client.Post(srv+query, "application/json", strings.NewReader(body))
		if err != nil {
			return 0, time.Since(start)
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, time.Since(start)
	}
	results := make(chan int, 2)
	for range 2 {
		go func() { code, _ := send("", large); results <- code }()
		time.Sleep(100 * time.Millisecond) // in this order
	}
	if code, d := send("", "{}"); code != http.StatusOK || d > time.Second {
		t.Errorf("small review behind two large ones: %d after %v, want 200 at once", code, d)
	}
	if code, d := send("?timeout=1s", large); code != http.StatusServiceUnavailable || d < 900*time.Millisecond || d > 3*time.Second {
		t.Errorf("large review whose caller waits 1 s: %d after %v, want 503 after 1 s", code, d)
	}
	close(release)
	for range 2 {
		if code := <-results; code != http.StatusOK {
			t.Errorf("large review: %d", code)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if largeRuns != 2 {
		t.Errorf("the handler ran %d large reviews, want 2 (not the one whose caller left)", largeRuns)
	}
}

// httptestServer serves h over plain HTTP on loopback and returns its URL.
func httptestServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestStalledHandshakesDoNotBlockOthers opens, on a server computing at most
// GOMAXPROCS handshakes at a time, connections that send part of a ClientHello and stall,
// and connections that send a whole ClientHello and stall: neither holds up a
// client's handshake, which completes at once.
func TestStalledHandshakesDoNotBlockOthers(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	addr, pool := cappedServer(t, 100, 5*time.Second, release)
	// A whole ClientHello record, captured from a real client.
	hello := captureClientHello(t)
	for i := range 8 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		part := hello[:3]
		if i%2 == 1 {
			part = hello
		}
		if _, err := c.Write(part); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 4 * time.Second}, "tcp", addr, &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatalf("handshake behind stalled ones: %v", err)
	}
	c.Close()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("handshake took %v behind stalled ones", d)
	}
}

// captureClientHello returns the first record a Go TLS client sends.
func captureClientHello(t *testing.T) []byte {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // only its ClientHello is used
		if err == nil {
			c.Close()
		}
	}()
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	hdr := make([]byte, 5)
	if _, err := io.ReadFull(c, hdr); err != nil {
		t.Fatal(err)
	}
	rec := make([]byte, 5+int(hdr[3])<<8|int(hdr[4]))
	copy(rec, hdr)
	if _, err := io.ReadFull(c, rec[5:]); err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestWaitingForBudgetIsNotSlowSending: a request that waits 2 s for body budget
// (held here by the test) and then arrives at once is answered, not cut off for
// a rate the server itself held it below.
func TestWaitingForBudgetIsNotSlowSending(t *testing.T) {
	srv, limiter := limitedServer(t, BodyLimits{ReadTimeout: 5 * time.Second})
	if !limiter.budget.TryAcquire(limiter.limits.Budget) {
		t.Fatal("budget not free")
	}
	go func() {
		time.Sleep(2 * time.Second)
		limiter.budget.Release(limiter.limits.Budget)
	}()
	// 256 KiB: more than net/http has read ahead with the headers, so the body is
	// read from the connection under the rate's deadline.
	review := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","kind":{"group":"","version":"v1","kind":"ConfigMap"},"operation":"CREATE","object":{"data":{"x":"` +
		strings.Repeat("x", 256<<10) + `"}}}}`
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(review))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d %q after waiting for budget, want 200", resp.StatusCode, b)
	}
}
