package localcp

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// echoBackend is a TCP server that answers each line with its name, and a
// readiness endpoint whose answer the test switches.
type echoBackend struct {
	name  string
	ln    net.Listener
	ready atomic.Bool
	probe *httptest.Server
}

func newEchoBackend(t *testing.T, name string) *echoBackend {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &echoBackend{name: name, ln: ln}
	e.ready.Store(true)
	e.probe = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if !e.ready.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					if _, err := r.ReadString('\n'); err != nil {
						return
					}
					fmt.Fprintln(c, name)
				}
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); e.probe.Close() })
	return e
}

func (e *echoBackend) backend() *Backend {
	return &Backend{Addr: e.ln.Addr().String(), ReadyURL: e.probe.URL + "/readyz"}
}

// ask opens a connection through the balancer and returns which backend answered
// ("" when the balancer closed the connection).
func ask(t *testing.T, b *Balancer) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", b.Port()), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintln(c, "who")
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return ""
	}
	return strings.TrimSpace(line)
}

func waitHealthy(t *testing.T, be *Backend, want bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := WaitFor(ctx, 10*time.Millisecond, func() (bool, error) { return be.Healthy() == want, nil }); err != nil {
		t.Fatalf("backend %s healthy never became %t", be.Addr, want)
	}
}

// TestBalancer: round robin over ready backends, none to a backend whose /readyz
// fails, the next backend when a connect is refused, and a closed connection when
// no backend is left.
func TestBalancer(t *testing.T) {
	a, b := newEchoBackend(t, "a"), newEchoBackend(t, "b")
	lb, err := StartBalancer([]*Backend{a.backend(), b.backend()}, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer lb.Close()
	seen := map[string]int{}
	for range 10 {
		seen[ask(t, lb)]++
	}
	if seen["a"] != 5 || seen["b"] != 5 {
		t.Errorf("both ready: %v, want 5 each", seen)
	}
	a.ready.Store(false)
	waitHealthy(t, lb.Backends[0], false)
	for range 5 {
		if got := ask(t, lb); got != "b" {
			t.Fatalf("a not ready: answered by %q, want b", got)
		}
	}
	a.ready.Store(true)
	waitHealthy(t, lb.Backends[0], true)
	// b stops listening but its /readyz still says 200 (a crash between checks):
	// connects to it are refused and go to a.
	b.ln.Close()
	for range 4 {
		if got := ask(t, lb); got != "a" {
			t.Fatalf("b refusing: answered by %q, want a", got)
		}
	}
	if lb.ConnectRetries() == 0 {
		t.Error("no connect retried")
	}
	a.ready.Store(false)
	waitHealthy(t, lb.Backends[0], false)
	if got := ask(t, lb); got != "" {
		t.Errorf("no backend ready: answered by %q, want the connection closed", got)
	}
}
