package localcp

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Backend is one meshguard replica behind a Balancer: its webhook address and the
// readiness URL the balancer health-checks.
type Backend struct {
	Addr, ReadyURL string
	healthy        atomic.Bool
	conns          atomic.Int64
}

// Conns is how many client connections the balancer has sent to this backend.
func (b *Backend) Conns() int64 { return b.conns.Load() }

// Healthy is the result of the last health check.
func (b *Backend) Healthy() bool { return b.healthy.Load() }

// Balancer is a TCP load balancer in front of meshguard replicas, standing in for
// the webhook Service (the local control plane has no kube-proxy): the webhook
// configurations' url points at it, TLS passes through untouched, and it behaves
// like a Service's endpoints or a real L4 balancer (HAProxy, an NLB):
//   - a backend gets new connections only while its /readyz answers 200, checked
//     every Interval (a failed check takes it out at once, a passing one puts it back);
//   - a new connection goes to the next healthy backend, round robin; when the
//     connect fails (refused) the next backend is tried, and only then is the client
//     connection closed;
//   - nothing is retried once a connection is established: requests are the
//     client's business, bytes are copied as they come, half-closes passed on.
type Balancer struct {
	Backends []*Backend
	// Interval between health checks (default 200 ms).
	Interval time.Duration

	ln      net.Listener
	next    atomic.Uint64
	refused atomic.Int64
	stop    chan struct{}
	wg      sync.WaitGroup
}

// StartBalancer listens on a free loopback port and starts health checks.
func StartBalancer(backends []*Backend, interval time.Duration) (*Balancer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	if interval <= 0 {
		interval = 200 * time.Millisecond
	}
	b := &Balancer{Backends: backends, Interval: interval, ln: ln, stop: make(chan struct{})}
	b.checkAll()
	b.wg.Add(2)
	go b.healthLoop()
	go b.acceptLoop()
	return b, nil
}

// Port is the port clients connect to.
func (b *Balancer) Port() int { return b.ln.Addr().(*net.TCPAddr).Port }

// URL is the webhook url for the chart (localhost: the certificate's DNS name).
func (b *Balancer) URL() string { return fmt.Sprintf("https://localhost:%d", b.Port()) }

// ConnectRetries counts backend connects that failed and were retried elsewhere.
func (b *Balancer) ConnectRetries() int64 { return b.refused.Load() }

// Close stops accepting, ends health checks and waits for the loops; copies in
// progress end with their connections.
func (b *Balancer) Close() error {
	close(b.stop)
	err := b.ln.Close()
	b.wg.Wait()
	return err
}

func (b *Balancer) healthLoop() {
	defer b.wg.Done()
	t := time.NewTicker(b.Interval)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			b.checkAll()
		}
	}
}

var probeClient = &http.Client{Timeout: time.Second}

func (b *Balancer) checkAll() {
	for _, be := range b.Backends {
		ok := false
		if resp, err := probeClient.Get(be.ReadyURL); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			ok = resp.StatusCode == http.StatusOK
		}
		be.healthy.Store(ok)
	}
}

func (b *Balancer) acceptLoop() {
	defer b.wg.Done()
	for {
		c, err := b.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		go b.serve(c)
	}
}

// pick returns the backends to try for a new connection: the healthy ones in
// round-robin order.
func (b *Balancer) pick() []*Backend {
	n := len(b.Backends)
	start := int(b.next.Add(1))
	var out []*Backend
	for i := range n {
		if be := b.Backends[(start+i)%n]; be.Healthy() {
			out = append(out, be)
		}
	}
	return out
}

func (b *Balancer) serve(client net.Conn) {
	defer client.Close()
	var backend net.Conn
	for _, be := range b.pick() {
		c, err := net.DialTimeout("tcp", be.Addr, 2*time.Second)
		if err != nil {
			// Connect failures only: the client has sent nothing to anyone yet.
			be.healthy.Store(false)
			b.refused.Add(1)
			continue
		}
		be.conns.Add(1)
		backend = c
		break
	}
	if backend == nil {
		return
	}
	defer backend.Close()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		done <- struct{}{}
	}
	go pipe(backend, client)
	go pipe(client, backend)
	<-done
	<-done
}
