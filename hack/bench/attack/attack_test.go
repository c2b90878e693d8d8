package attack

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"runtime/debug"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/hack/bench/kit"
	"github.com/meshguard/meshguard/kumaauthz"
	"github.com/meshguard/meshguard/webhook"
	"github.com/meshguard/meshguard/webhook/serving/servingtest"
)

// chartConnections is the connection cap the chart's memory limit allows
// (serving.ConnectionCap of GOMEMLIMIT 0.9 × 256Mi), written out so that this
// test also builds against a server that has no cap.
const chartConnections = 921

// startInProcess runs webhook.Run as `meshguard serve --offline` with default
// flags does, in this process, with the Go memory limit the chart sets, and
// returns its address and a pool trusting its certificate.
func startInProcess(t *testing.T) (string, *x509.CertPool) {
	t.Helper()
	old := debug.SetMemoryLimit(kit.ChartMemLimit)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
	dir := t.TempDir()
	roots, err := kit.WriteCerts(dir)
	if err != nil {
		t.Fatal(err)
	}
	port, err := servingtest.FreeLoopbackPort()
	if err != nil {
		t.Fatal(err)
	}
	o := webhook.Options{Settings: api.DefaultSettings(), Offline: true, CertDir: dir, Host: "127.0.0.1", Port: port,
		MetricsAddr: "0", ProbeAddr: "0", ShutdownTimeout: time.Second, PreviewForm: kumaauthz.FormExpanded,
		PreviewMaxItems: webhook.DefaultPreviewMaxItems, LinkerdServerConflicts: webhook.ServerConflictsWarn}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- webhook.Run(ctx, nil, o, logr.Discard()) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
		}
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-done:
			t.Fatalf("server stopped: %v", err)
		default:
		}
		if c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}); err == nil {
			c.Close()
			return addr, roots
		}
		if time.Now().After(deadline) {
			t.Fatal("server not serving after 60 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestAttacks runs small versions of issue 27's attacks against the webhook
// server as `meshguard serve --offline` runs it (in this process, with the
// chart's memory limit and default flags), each with a legitimate caller sending
// small reviews alongside: the caller's p99 stays under 1 s with no failure at
// the chart's 5 s timeout, and idle connections past the cap are not kept.
// Sizes are the smallest that still exceed the default bounds before this
// change: 300 slow bodies hold 64 KiB each of the 16 MiB body budget (full at
// 256), 1,200 idle keep-alive connections are more than the cap, two clients
// sending 2.9 MB reviews back to back fill the work budget's queue.
func TestAttacks(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	addr, roots := startInProcess(t)
	large, err := kit.LargeReview(26000)
	if err != nil {
		t.Fatal(err)
	}
	goals := Goals{P99: time.Second}
	for _, tc := range []struct {
		o     Options
		goals Goals
	}{
		{Options{Kind: SlowBody, Attackers: 300, Duration: 6 * time.Second, SlowInterval: 2 * time.Second}, goals},
		{Options{Kind: Idle, Attackers: 1200, Duration: 4 * time.Second, IdleRequest: true}, Goals{P99: time.Second, MaxOpenEnd: chartConnections}},
		// Last: the server is still busy with the last large review when it ends.
		{Options{Kind: Large, Attackers: 2, Duration: 8 * time.Second, LargeBody: large}, goals},
	} {
		t.Run(tc.o.Kind, func(t *testing.T) {
			o := tc.o
			o.Addr, o.Roots, o.Rate, o.Timeout = addr, roots, 10, 5*time.Second
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d legit reviews, %d failed, p50 %.1f ms, p99 %.1f ms, max %.1f ms; attacker: %s; open at end %d",
				res.Legit.Requests, res.Legit.Errors, res.Legit.P50, res.Legit.P99, res.Legit.Max, res.Outcomes(), res.OpenAtEnd)
			for _, f := range res.Failures(tc.goals) {
				t.Error(f)
			}
		})
	}
}
