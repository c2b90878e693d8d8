//go:build e2e

package e2e

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meshguard/meshguard/e2e/localcp"
)

// outcome is one request of a load: when it started, what it was, how long it
// took and its error.
type outcome struct {
	at  time.Time
	op  string
	lat time.Duration
	err error
}

// stream is a steady flow of MeshTimeout creates and updates through the API
// server: every 20 ms one operation (about 50 a second), alternately a create and
// a merge patch of an object created earlier, by a few workers so that a slow
// answer does not slow the rate.
type stream struct {
	mu  sync.Mutex
	out []outcome
	// created are the objects whose create has succeeded, in order: updates pick
	// from them, so that on a loaded machine, where a create can still be in
	// flight 20 operations later, an update never meets "not found" (a failure of
	// the test's own, not of admission).
	created []int
	stop    chan struct{}
	wg      sync.WaitGroup
}

func startStream(c client.Client, ns string) *stream {
	s := &stream{stop: make(chan struct{})}
	ops := make(chan int, 200)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(ops)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for i := 0; ; i++ {
			select {
			case <-s.stop:
				return
			case <-t.C:
				select {
				case ops <- i:
				default: // workers all busy: the rate drops rather than queueing
				}
			}
		}
	}()
	for range 6 {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for i := range ops {
				s.do(c, ns, i)
			}
		}()
	}
	return s
}

func (s *stream) do(c client.Client, ns string, i int) {
	n := i / 2
	if i%2 == 1 {
		// Odd operations update an object created about 10 creates earlier.
		s.mu.Lock()
		ok := len(s.created) >= 10
		if ok {
			n = s.created[len(s.created)-10]
		}
		s.mu.Unlock()
		if !ok {
			return // nothing old enough to update yet
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	op, start := "create", time.Now()
	var err error
	// Even operations create; odd ones change an older object's spec so both
	// webhooks run on UPDATE.
	if i%2 == 1 {
		op = "update"
		patch := fmt.Sprintf(`{"spec":{"to":[{"targetRef":{"kind":"MeshService","name":"svc"},"default":{"idleTimeout":"%ds"}}]}}`, 60+i)
		err = c.Patch(ctx, namespaced(streamPolicy(n), ns), client.RawPatch(types.MergePatchType, []byte(patch)))
	} else {
		err = c.Create(ctx, namespaced(streamPolicy(n), ns))
	}
	s.mu.Lock()
	s.out = append(s.out, outcome{start, op, time.Since(start), err})
	if op == "create" && err == nil {
		s.created = append(s.created, n)
	}
	s.mu.Unlock()
}

func namespaced(u *unstructured.Unstructured, ns string) *unstructured.Unstructured {
	u.SetNamespace(ns)
	return u
}

// end stops the stream and returns every outcome.
func (s *stream) end() []outcome {
	close(s.stop)
	s.wg.Wait()
	return s.out
}

// summary counts outcomes in [from, to): operations, failures, latencies.
func summary(out []outcome, from, to time.Time) (n, failed int, p50, p99, maxLat time.Duration) {
	var lats []time.Duration
	for _, o := range out {
		if o.at.Before(from) || !o.at.Before(to) {
			continue
		}
		n++
		if o.err != nil {
			failed++
		}
		lats = append(lats, o.lat)
	}
	if len(lats) == 0 {
		return
	}
	slices.Sort(lats)
	return n, failed, lats[len(lats)/2], lats[len(lats)*99/100], lats[len(lats)-1]
}

// certWatch records every distinct serving certificate the replicas present, to
// count rotations while the load runs.
type certWatch struct {
	mu    sync.Mutex
	seen  []string
	at    []time.Time
	stop  chan struct{}
	wg    sync.WaitGroup
	ports []int
}

func watchCerts(replicas []*localcp.Meshguard) *certWatch {
	w := &certWatch{stop: make(chan struct{})}
	for _, m := range replicas {
		w.ports = append(w.ports, m.Port)
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		for {
			for _, p := range w.ports {
				if fp := fingerprint(p); fp != "" {
					w.mu.Lock()
					if !slices.Contains(w.seen, fp) {
						w.seen, w.at = append(w.seen, fp), append(w.at, time.Now())
					}
					w.mu.Unlock()
				}
			}
			select {
			case <-w.stop:
				return
			case <-time.After(time.Second):
			}
		}
	}()
	return w
}

// rotations stops the watch and returns when each new certificate was first seen.
func (w *certWatch) rotations() []time.Time {
	close(w.stop)
	w.wg.Wait()
	if len(w.at) < 2 {
		return nil
	}
	return w.at[1:]
}

func fingerprint(port int) string {
	c, err := tls.DialWithDialer(&netDialer, "tcp", fmt.Sprintf("127.0.0.1:%d", port), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // reading the cert, not trusting it
	if err != nil {
		return ""
	}
	defer c.Close()
	return fmt.Sprintf("%x", sha256.Sum256(c.ConnectionState().PeerCertificates[0].Raw))[:16]
}

// soakResult is what the GitOps soak saw.
type soakResult struct {
	bursts, applies, failures int
	maxLat                    time.Duration
	gaps                      []time.Duration
}

// soakGaps are the idle gaps between bursts, cycled: all longer than 30 s, one
// just past the API server's 90 s keep-alive of idle webhook connections.
var soakGaps = []time.Duration{35 * time.Second, 92 * time.Second, 55 * time.Second}

// soakDuration is 2 minutes, or $MESHGUARD_SOAK (a Go duration) for longer runs:
// bursts at the start and after the 35 s gap (both while the replicas restart),
// and one after the 92 s gap, the one past the API server's keep-alive. The 55 s
// gap comes in longer runs.
func soakDuration(t *testing.T) time.Duration {
	if v := os.Getenv("MESHGUARD_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("MESHGUARD_SOAK=%q: %v", v, err)
		}
		return d
	}
	return 2 * time.Minute
}

// gitopsSoak does what a GitOps controller does on every sync: server-side
// dry-run applies of the manifests, in bursts separated by idle gaps, until d has
// passed. Each burst applies examples/valid (must succeed) and one invalid example
// (must be denied by meshguard with its code, not time out or fail to reach it).
func gitopsSoak(t *testing.T, kubeconfig string, d time.Duration) soakResult {
	var r soakResult
	start := time.Now()
	for {
		r.bursts++
		for range 3 {
			r.applies += 2
			lat, ok := soakApply(t, kubeconfig, repo("examples/valid/"), "")
			lat2, ok2 := soakApply(t, kubeconfig, repo("examples/invalid/from-and-to.yaml"), "MG102")
			r.maxLat = max(r.maxLat, lat, lat2)
			if !ok {
				r.failures++
			}
			if !ok2 {
				r.failures++
			}
		}
		if time.Since(start) >= d {
			return r
		}
		gap := soakGaps[(r.bursts-1)%len(soakGaps)]
		r.gaps = append(r.gaps, gap)
		time.Sleep(gap)
	}
}

// soakApply runs one `kubectl apply --server-side --dry-run=server`; wantDenied
// is the code a denial must carry ("" : must succeed).
func soakApply(t *testing.T, kubeconfig, path, wantDenied string) (time.Duration, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	out, err := exec.CommandContext(ctx, "kubectl", "--kubeconfig", kubeconfig, "apply", "--server-side", "--dry-run=server",
		"--field-manager=gitops-soak", "-f", path).CombinedOutput()
	lat := time.Since(start)
	switch {
	case wantDenied == "" && err != nil:
		t.Errorf("soak: dry-run apply of %s failed after %s: %v\n%s", path, lat, err, out)
		return lat, false
	case wantDenied != "" && (err == nil || !strings.Contains(string(out), wantDenied) || strings.Contains(string(out), "failed calling webhook")):
		t.Errorf("soak: dry-run apply of %s: want meshguard's denial with %s, got (%v):\n%s", path, wantDenied, err, out)
		return lat, false
	}
	return lat, true
}
