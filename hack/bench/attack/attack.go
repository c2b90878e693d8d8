// Package attack runs the hostile loads of issue 27 against a meshguard webhook
// server on loopback while a legitimate caller sends small reviews, and reports
// what the legitimate caller got: slow-body connections (a byte every few
// seconds), idle connections (TLS handshake, optionally one request, then
// nothing) and clients streaming large valid reviews back to back. Every attack
// is bounded in count and time, stops by itself and talks to one loopback
// address only.
package attack

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/meshguard/meshguard/hack/bench/kit"
	"github.com/meshguard/meshguard/hack/bench/load"
	"github.com/meshguard/meshguard/webhook/webhooktest"
)

// Kinds of attack.
const (
	SlowBody = "slowbody"
	Idle     = "idle"
	Large    = "large"
)

// Kinds lists the attacks in the order `bench attack -attack all` runs them.
func Kinds() []string { return []string{SlowBody, Idle, Large} }

// Options describe one attack run.
type Options struct {
	// Addr is the webhook server's loopback host:port; Roots trust its certificate.
	Addr  string
	Roots *x509.CertPool
	// Kind is SlowBody, Idle or Large; Attackers the connections (SlowBody, Idle)
	// or clients (Large) it uses.
	Kind      string
	Attackers int
	// Duration of the legitimate caller's phase, which starts once the attack is
	// in place.
	Duration time.Duration
	// Rate of legitimate small reviews per second, each given Timeout (the
	// chart's timeoutSeconds, sent as the API server sends it).
	Rate    float64
	Timeout time.Duration
	// SlowInterval: a slow-body connection sends one byte this often.
	SlowInterval time.Duration
	// IdleRequest: an idle connection sends one request before it idles (a
	// keep-alive connection); otherwise it never sends one.
	IdleRequest bool
	// LargeBody is the review the Large clients send back to back.
	LargeBody []byte
}

// Result is what an attack run measured.
type Result struct {
	Kind      string  `json:"attack"`
	Attackers int     `json:"attackers"`
	Seconds   float64 `json:"seconds"`
	// Legit is the legitimate caller's phase (requests, errors, latency
	// percentiles from each request's scheduled time).
	Legit load.Result `json:"legit"`
	// Attacker outcomes by kind ("cut off 408", "answered 200", ...).
	Attacker map[string]int `json:"attacker"`
	// OpenAtEnd: attacker connections the server still kept open when the
	// legitimate phase ended (Idle only).
	OpenAtEnd int `json:"openAtEnd,omitempty"`
	// PeakRSSMiB is the server's VmHWM, when it runs as a process of its own.
	PeakRSSMiB float64 `json:"peakRssMiB,omitempty"`
}

// Goals are what admission must keep under an attack (issue 27, point 1).
type Goals struct {
	P99        time.Duration
	MaxRSSMiB  float64
	MaxOpenEnd int
}

// Failures lists the goals r misses.
func (r Result) Failures(g Goals) []string {
	var out []string
	if r.Legit.Requests == 0 {
		out = append(out, "no legitimate review was sent")
	}
	if r.Legit.Errors > 0 {
		out = append(out, fmt.Sprintf("%d of %d legitimate reviews failed (first: %s)", r.Legit.Errors, r.Legit.Requests, r.Legit.FirstError))
	}
	if p99 := time.Duration(r.Legit.P99 * float64(time.Millisecond)); g.P99 > 0 && p99 >= g.P99 {
		out = append(out, fmt.Sprintf("p99 of legitimate reviews %v, goal < %v", p99, g.P99))
	}
	if g.MaxRSSMiB > 0 && r.PeakRSSMiB >= g.MaxRSSMiB {
		out = append(out, fmt.Sprintf("peak RSS %.1f MiB, goal < %.0f MiB", r.PeakRSSMiB, g.MaxRSSMiB))
	}
	if g.MaxOpenEnd > 0 && r.OpenAtEnd > g.MaxOpenEnd {
		out = append(out, fmt.Sprintf("%d attacker connections kept open, goal at most %d", r.OpenAtEnd, g.MaxOpenEnd))
	}
	return out
}

// Run starts the attack, waits until it is in place, runs the legitimate caller
// for Duration, then stops the attack and reports. It ends within Duration plus
// a minute whatever the server does.
func Run(ctx context.Context, o Options) (Result, error) {
	if o.Attackers < 1 || o.Duration <= 0 || o.Rate <= 0 || o.Timeout <= 0 {
		return Result{}, fmt.Errorf("attackers, duration, rate and timeout must be positive")
	}
	ctx, cancel := context.WithTimeout(ctx, o.Duration+time.Minute)
	defer cancel()
	review, err := webhooktest.NewReview()
	if err != nil {
		return Result{}, err
	}
	a := &attacker{o: o, outcomes: map[string]int{}}
	// Attackers spend as little CPU as they can: no certificate verification, the
	// cheapest key exchange. Their handshakes then cost the server what they cost.
	a.conf = &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}, //nolint:gosec // an attacker
		CurvePreferences: []tls.CurveID{tls.X25519}}
	actx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var ready sync.WaitGroup
	switch o.Kind {
	case SlowBody:
		a.spawn(actx, &wg, &ready, a.slowBody)
	case Idle:
		a.spawn(actx, &wg, &ready, a.idle)
	case Large:
		if len(o.LargeBody) == 0 {
			stop()
			return Result{}, fmt.Errorf("the large attack needs a review to send")
		}
		a.spawn(actx, &wg, &ready, a.large)
	default:
		stop()
		return Result{}, fmt.Errorf("unknown attack %q (want %s)", o.Kind, strings.Join(Kinds(), ", "))
	}
	ready.Wait()
	start := time.Now()
	workers := max(4, int(o.Rate*o.Timeout.Seconds())+1)
	ld := &load.Load{Client: kit.NewClient(o.Roots, workers, o.Timeout), Review: review, DecodeEvery: 1}
	// The API server sends its webhook timeout in the URL (client-go's Request.Timeout).
	url := "https://" + o.Addr + "/validate?timeout=" + strconv.Itoa(int(o.Timeout.Seconds())) + "s"
	legit := ld.Open(ctx, load.Target{Name: "legitimate small review during " + o.Kind, URL: url}, o.Rate, o.Duration, workers)
	res := Result{Kind: o.Kind, Attackers: o.Attackers, Legit: legit}
	if o.Kind == Idle {
		res.OpenAtEnd = a.stillOpen()
	}
	stop()
	wg.Wait()
	a.closeAll()
	ld.Client.CloseIdleConnections()
	res.Seconds = time.Since(start).Seconds()
	res.Attacker = a.outcomes
	return res, nil
}

// attacker holds the state of the attack's goroutines.
type attacker struct {
	o        Options
	conf     *tls.Config
	mu       sync.Mutex
	outcomes map[string]int
	held     []net.Conn
}

func (a *attacker) count(what string) {
	a.mu.Lock()
	a.outcomes[what]++
	a.mu.Unlock()
}

// spawn starts o.Attackers goroutines of f; ready is done once each has its
// first connection in place (or has failed to make one).
func (a *attacker) spawn(ctx context.Context, wg, ready *sync.WaitGroup, f func(ctx context.Context, placed func())) {
	// At most 64 connections are being set up at once, as a client would.
	gate := make(chan struct{}, 64)
	for range a.o.Attackers {
		ready.Add(1)
		wg.Add(1)
		gate <- struct{}{}
		go func() {
			defer wg.Done()
			var once sync.Once
			placed := func() { once.Do(func() { <-gate; ready.Done() }) }
			defer placed()
			f(ctx, placed)
		}()
	}
}

// dial opens a TLS connection to the server (handshake done).
func (a *attacker) dial(ctx context.Context) (*tls.Conn, error) {
	d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: 10 * time.Second}, Config: a.conf}
	c, err := d.DialContext(ctx, "tcp", a.o.Addr)
	if err != nil {
		return nil, err
	}
	return c.(*tls.Conn), nil
}

// slowBody announces a 1 MiB review and sends a byte every SlowInterval until
// the server answers or closes; then, one interval later (its pace: one action
// every interval), it starts over, until ctx ends. Reconnecting at once instead
// would be a TLS handshake flood, a different attack (CPU, not memory or
// budget), which no bound of a single server can answer.
func (a *attacker) slowBody(ctx context.Context, placed func()) {
	for ctx.Err() == nil {
		c, err := a.dial(ctx)
		if err != nil {
			placed()
			a.count("dial failed")
			sleep(ctx, time.Second)
			continue
		}
		fmt.Fprintf(c, "POST /validate HTTP/1.1\r\nHost: meshguard\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", 1<<20)
		placed()
		answered := make(chan string, 1)
		go func() {
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				answered <- "closed without an answer"
				return
			}
			resp.Body.Close()
			answered <- "cut off " + strconv.Itoa(resp.StatusCode)
		}()
		a.count(a.trickle(ctx, c, answered))
		c.Close()
		sleep(ctx, a.o.SlowInterval/2+rand.N(a.o.SlowInterval))
	}
}

// trickle sends one byte every SlowInterval on c until the server answers (or
// closes), or ctx ends.
func (a *attacker) trickle(ctx context.Context, c net.Conn, answered <-chan string) string {
	t := time.NewTicker(a.o.SlowInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return "still sending at the end"
		case what := <-answered:
			return what
		case <-t.C:
			if _, err := c.Write([]byte(" ")); err != nil {
				return "closed while sending"
			}
		}
	}
}

// idle opens a connection, optionally sends one request and reads its answer,
// and then holds the connection until ctx ends.
func (a *attacker) idle(ctx context.Context, placed func()) {
	c, err := a.dial(ctx)
	if err != nil {
		a.count("dial failed")
		return
	}
	a.mu.Lock()
	a.held = append(a.held, c)
	a.mu.Unlock()
	if a.o.IdleRequest {
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: meshguard\r\n\r\n")
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			a.count("request before idling failed")
			return
		}
		resp.Body.Close()
		_ = c.SetReadDeadline(time.Time{})
	}
	a.count("opened")
}

// stillOpen counts the held connections the server has not closed.
func (a *attacker) stillOpen() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	open := 0
	var b [1]byte
	for _, c := range a.held {
		_ = c.SetReadDeadline(time.Now().Add(time.Millisecond))
		_, err := c.Read(b[:])
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			open++
		}
	}
	return open
}

func (a *attacker) closeAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, c := range a.held {
		c.Close()
	}
	a.held = nil
}

// large sends LargeBody to /validate back to back until ctx ends, as a client
// allowed to dry-run large objects through the API server could.
func (a *attacker) large(ctx context.Context, placed func()) {
	client := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{TLSClientConfig: a.conf, MaxConnsPerHost: 1}}
	defer client.CloseIdleConnections()
	first := true
	for ctx.Err() == nil {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://"+a.o.Addr+"/validate", bytes.NewReader(a.o.LargeBody))
		if err != nil {
			return
		}
		req.Header.Set("Content-Type", "application/json")
		if first {
			// The legitimate phase starts once the first large review is on its way.
			go func() { sleep(ctx, 200*time.Millisecond); placed() }()
			first = false
		}
		resp, err := client.Do(req)
		if err != nil {
			if ctx.Err() == nil {
				a.count("error")
			}
			continue
		}
		_, _ = bytes.NewBuffer(nil).ReadFrom(resp.Body)
		resp.Body.Close()
		a.count("answered " + strconv.Itoa(resp.StatusCode))
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// Outcomes renders the attacker outcomes as "n × what" in a stable order.
func (r Result) Outcomes() string {
	var parts []string
	for k, v := range r.Attacker {
		parts = append(parts, fmt.Sprintf("%d × %s", v, k))
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}
