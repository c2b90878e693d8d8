package serving

import (
	"context"
	"math"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Bounds of the connections the webhook server keeps open.
const (
	// connBytes is what one open connection costs the server, measured with
	// `bench attack -attack idle`: ~26-35 KiB once a request was served (goroutine
	// stack, bufio buffers, TLS state), ~45-60 KiB for one that completed a
	// handshake and sent nothing. The cap is sized with the larger figure.
	connBytes = 64 << 10
	// connMemoryShare is the part of the Go memory limit open connections may
	// take: the rest is for the informer caches, the body and work budgets and the
	// collector's headroom.
	connMemoryShare = 4
	// DefaultMaxConnections is the cap when the process has no memory limit.
	DefaultMaxConnections = 1024
	// minConnections is the smallest cap a tiny memory limit gives: the API
	// servers of an HA control plane keep tens of connections each.
	minConnections = 64
	// DefaultHeaderTimeout bounds the TLS handshake and the request headers of a
	// connection (net/http uses the header timeout for the handshake too). The API
	// server sends both at once; a connection that sends nothing is closed after
	// it, and until then it is the first one evicted at the cap.
	DefaultHeaderTimeout = 5 * time.Second
)

// ConnectionCap is the number of connections the server keeps open with a Go
// memory limit of memLimit bytes (math.MaxInt64 or less than 1: none): a quarter
// of the limit at connBytes each, at least minConnections. With the chart's
// 256Mi container and GOMEMLIMIT at 90% that is 921.
func ConnectionCap(memLimit int64) int {
	if memLimit <= 0 || memLimit == math.MaxInt64 {
		return DefaultMaxConnections
	}
	return max(minConnections, int(memLimit/connMemoryShare/connBytes))
}

// connPhase is where a connection is; the cap evicts in this order of preference.
type connPhase int

const (
	// phaseNew: accepted, no request yet (TLS handshake or waiting for headers).
	phaseNew connPhase = iota
	// phaseIdle: between requests (keep-alive).
	phaseIdle
	// phaseReading: reading a request's headers or body.
	phaseReading
	// phaseWorking: the body is in and the request is being answered; never
	// evicted.
	phaseWorking
)

// trackedConn is one open connection and what the cap judges it by.
type trackedConn struct {
	conn  net.Conn
	phase connPhase
	// since is when the connection entered its phase: the one evicted is the
	// longest in the most evictable phase.
	since time.Time
}

// connCap keeps at most max connections open: a connection accepted at the cap
// closes another first, the one that has sent nothing for the longest (never a
// request, then idle, then slowest to send its request), never one whose request
// is being answered. A plain cap would let anyone who can open connections lock
// the API server out; eviction makes a flood of idle or slow connections cost
// each other, while the API server's busy connections stay.
type connCap struct {
	max     int
	mu      sync.Mutex
	conns   map[net.Conn]*trackedConn
	evicted atomic.Int64
	now     func() time.Time
}

func newConnCap(limit int) *connCap {
	return &connCap{max: limit, conns: make(map[net.Conn]*trackedConn, limit), now: time.Now}
}

// admit tracks c, evicting another connection if the cap is reached; false means
// no connection could make room and c must be closed.
func (cc *connCap) admit(c net.Conn) bool {
	cc.mu.Lock()
	var victim *trackedConn
	if len(cc.conns) >= cc.max {
		victim = cc.victimLocked()
		if victim == nil {
			cc.mu.Unlock()
			return false
		}
		delete(cc.conns, victim.conn)
	}
	cc.conns[c] = &trackedConn{conn: c, phase: phaseNew, since: cc.now()}
	cc.mu.Unlock()
	if victim != nil {
		cc.evicted.Add(1)
		_ = victim.conn.Close()
	}
	return true
}

// victimLocked is the connection to close: the lowest phase, longest in it.
func (cc *connCap) victimLocked() *trackedConn {
	var best *trackedConn
	for _, t := range cc.conns {
		if t.phase == phaseWorking {
			continue
		}
		if best == nil || t.phase < best.phase || (t.phase == best.phase && t.since.Before(best.since)) {
			best = t
		}
	}
	return best
}

// set moves c to phase (a connection no longer tracked is ignored).
func (cc *connCap) set(c net.Conn, phase connPhase) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if t := cc.conns[c]; t != nil && t.phase != phase {
		t.phase, t.since = phase, cc.now()
	}
}

func (cc *connCap) forget(c net.Conn) {
	cc.mu.Lock()
	delete(cc.conns, c)
	cc.mu.Unlock()
}

// open is the number of tracked connections.
func (cc *connCap) open() int {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return len(cc.conns)
}

// connState follows net/http's view of each connection.
func (cc *connCap) connState(c net.Conn, st http.ConnState) {
	switch st {
	case http.StateActive:
		cc.set(c, phaseReading)
	case http.StateIdle:
		cc.set(c, phaseIdle)
	case http.StateClosed, http.StateHijacked:
		cc.forget(c)
	}
}

// phaseKey is the context key of a request's connection phase setter.
type phaseKey struct{}

// withPhaseSetter is http.Server.ConnContext: requests on c can mark it working
// (markWorking) once their body is in.
func (cc *connCap) withPhaseSetter(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, phaseKey{}, func(p connPhase) { cc.set(c, p) })
}

// markWorking tells the connection cap, if the request came through one, that
// its body is in and it is being answered: it is then never evicted.
func markWorking(ctx context.Context) {
	if set, ok := ctx.Value(phaseKey{}).(func(connPhase)); ok {
		set(phaseWorking)
	}
}
