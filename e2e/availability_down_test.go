//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/e2e/localcp"
)

// stopAll stops every replica (SIGTERM) and waits until the balancer has none.
func (a *availability) stopAll(t *testing.T) {
	t.Helper()
	var wg sync.WaitGroup
	for i, m := range a.st.Replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := m.Stop(30 * time.Second); err != nil {
				t.Errorf("replica %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := localcp.WaitFor(ctx, 50*time.Millisecond, func() (bool, error) {
		for _, be := range a.st.Balancer.Backends {
			if be.Healthy() {
				return false, nil
			}
		}
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
}

// timed runs f and returns its error and duration.
func timed(f func() error) (time.Duration, error) {
	start := time.Now()
	err := f()
	return time.Since(start), err
}

// down: with every replica stopped, failurePolicy Fail refuses writes of
// meshguard's kinds at once with the API server's message naming the webhook, and
// nothing else is affected; with Ignore the same writes are admitted (unchecked).
func (a *availability) down(t *testing.T) {
	ctx := context.Background()
	a.stopAll(t)
	var slowest time.Duration
	var msg string
	for i := range 5 {
		lat, err := timed(func() error { return a.c.Create(ctx, namespaced(streamPolicy(50000+i), "probe-ns")) })
		slowest = max(slowest, lat)
		if !isWebhookFailure(err) || !strings.Contains(err.Error(), "meshguard.io") {
			t.Errorf("Fail, meshguard down: create gave %v; want the API server's failed calling webhook \"…meshguard.io\"", err)
		} else {
			msg = err.Error()
		}
	}
	t.Logf("Fail, meshguard down: 5 creates refused, slowest in %s; the API server says: %s", slowest.Round(time.Millisecond), msg)
	// timeoutSeconds is 5: a refusal that took that long would be a timeout, not a
	// connection refused. Generous, the machine may be loaded.
	if slowest > 4*time.Second {
		t.Errorf("refusals took up to %s: not failing fast", slowest)
	}
	others := []struct {
		what string
		obj  client.Object
	}{
		{"ConfigMap in default", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "while-down", Namespace: "default"}}},
		{"ConfigMap in kube-system", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "while-down", Namespace: "kube-system"}}},
		{"Namespace", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "created-while-down"}}},
		{"MeshTimeout in kube-system (namespaceSelector excludes it)", namespaced(streamPolicy(50010), "kube-system")},
	}
	for _, o := range others {
		lat, err := timed(func() error { return a.c.Create(ctx, o.obj) })
		if err != nil {
			t.Errorf("Fail, meshguard down: %s: %v; want it unaffected", o.what, err)
			continue
		}
		t.Logf("Fail, meshguard down: %s created in %s", o.what, lat.Round(time.Millisecond))
	}
	a.setFailurePolicy(t, admissionregv1.Ignore)
	p := namespaced(streamPolicy(50020), "probe-ns")
	lat, err := timed(func() error { return a.c.Create(ctx, p) })
	if err != nil {
		t.Errorf("Ignore, meshguard down: %v; want the write admitted", err)
	} else {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(p.GroupVersionKind())
		if err := a.c.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
			t.Fatal(err)
		}
		t.Logf("Ignore, meshguard down: created in %s, stored without meshguard's labels (role label %q): what Ignore trades for availability",
			lat.Round(time.Millisecond), got.GetLabels()[api.LabelPolicyRole])
	}
	a.setFailurePolicy(t, admissionregv1.Fail)
}

// sample is what freshInstall observes every 100 ms: each replica's /readyz
// (read first), then the webhook configurations.
type sample struct {
	at       time.Time
	ready    bool
	mut, val admissionregv1.FailurePolicyType
	caBundle bool
}

// freshInstall installs meshguard afresh (no certificate anywhere, no caBundle)
// with failOpenUntilReady and starts both replicas: no replica is ready before
// the caBundle is injected, the webhooks stay Ignore until a replica is ready and
// its self-check passed, then become Fail; from then on a bad policy is denied, and
// with meshguard down writes fail closed.
func (a *availability) freshInstall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a.stopAll(t)
	// What a first install finds: no Secret with certificates, no webhook
	// configurations (the chart creates them without a caBundle).
	for _, o := range []client.Object{
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: localcp.ReleaseNamespace, Name: "meshguard-webhook-cert"}},
		&admissionregv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "meshguard-mutating"}},
		&admissionregv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "meshguard-validating"}},
	} {
		if err := a.c.Delete(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	objs, err := localcp.RenderChart(map[string]any{"webhook": map[string]any{"url": a.st.WebhookURL()},
		"deployment": map[string]any{"enabled": false}, "failOpenUntilReady": true})
	if err != nil {
		t.Fatal(err)
	}
	if err := localcp.Apply(ctx, a.c, objs); err != nil {
		t.Fatal(err)
	}
	if mut, val, ca, err := a.policies(ctx); err != nil || mut != admissionregv1.Ignore || val != admissionregv1.Ignore || ca {
		t.Fatalf("after install: mutating %s, validating %s, caBundle %t (%v); want Ignore, Ignore, none", mut, val, ca, err)
	}
	for _, m := range a.st.Replicas {
		if err := os.RemoveAll(m.CertDir); err != nil {
			t.Fatal(err)
		}
		m.Args = append(m.Args, "--fail-open-until-ready")
	}
	obs := a.observe(ctx)
	bad := load(t, repo("examples/invalid/from-and-to.yaml"))[0]
	probes := a.probe(ctx, bad)
	start := time.Now()
	for _, m := range a.st.Replicas {
		if err := m.Start(); err != nil {
			t.Fatal(err)
		}
	}
	if err := localcp.WaitFor(ctx, 100*time.Millisecond, func() (bool, error) {
		mut, val, _, err := a.policies(ctx)
		return mut == admissionregv1.Fail && val == admissionregv1.Fail, err
	}); err != nil {
		t.Fatalf("failurePolicy never switched to Fail: %v (logs: %s)", err, a.st.Meshguard.LogPath)
	}
	time.Sleep(2 * time.Second)
	samples, outcomes := obs(), probes()
	a.checkOrder(t, start, samples, outcomes)
	a.stopAll(t)
	err = a.c.Create(ctx, namespaced(streamPolicy(50030), "probe-ns"))
	if !isWebhookFailure(err) {
		t.Errorf("after the switch, meshguard down: create gave %v; want it refused (Fail)", err)
	}
}

// checkOrder asserts the order freshInstall's observations must show and logs
// the timings.
func (a *availability) checkOrder(t *testing.T, start time.Time, samples []sample, outcomes []outcome) {
	var firstCA, firstReady, firstFail time.Time
	for _, s := range samples {
		if s.ready && !s.caBundle {
			t.Errorf("%s: a replica was ready while a webhook configuration had no caBundle", s.at.Format(time.StampMilli))
		}
		if s.caBundle && firstCA.IsZero() {
			firstCA = s.at
		}
		if s.ready && firstReady.IsZero() {
			firstReady = s.at
		}
		fail := s.mut == admissionregv1.Fail || s.val == admissionregv1.Fail
		if fail && firstFail.IsZero() {
			firstFail = s.at
		}
		if fail && firstReady.IsZero() {
			t.Errorf("%s: failurePolicy Fail before any replica was ready", s.at.Format(time.StampMilli))
		}
	}
	counts := map[string]int{}
	for _, o := range outcomes {
		kind := "denied by meshguard"
		switch {
		case o.err == nil:
			kind = "admitted unchecked"
		case isWebhookFailure(o.err):
			kind = "webhook unreachable"
		case !strings.Contains(o.err.Error(), "MG102"):
			kind = "other error"
			t.Errorf("probe at %s: %v", o.at.Format(time.StampMilli), o.err)
		}
		if !firstFail.IsZero() && o.at.After(firstFail) && kind != "denied by meshguard" {
			t.Errorf("probe at %s, after the switch to Fail: %s (%v)", o.at.Format(time.StampMilli), kind, o.err)
		}
		phase := "before ready"
		if !firstReady.IsZero() && o.at.After(firstReady) {
			phase = "after ready"
		}
		counts[phase+": "+kind]++
	}
	since := func(at time.Time) string {
		if at.IsZero() {
			return "never"
		}
		return at.Sub(start).Round(100 * time.Millisecond).String()
	}
	t.Logf("fresh install with failOpenUntilReady: caBundle injected after %s, first replica ready after %s, failurePolicy Fail after %s; dry-run probes of an invalid policy: %v",
		since(firstCA), since(firstReady), since(firstFail), counts)
}

// observe samples readiness and the webhook configurations every 100 ms until the
// returned function is called.
func (a *availability) observe(ctx context.Context) func() []sample {
	var out []sample
	stop, done := make(chan struct{}), make(chan struct{})
	hc := &http.Client{Timeout: time.Second}
	go func() {
		defer close(done)
		for {
			s := sample{at: time.Now()}
			for _, m := range a.st.Replicas {
				if resp, err := hc.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", m.ProbePort)); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					s.ready = s.ready || resp.StatusCode == http.StatusOK
				}
			}
			var err error
			if s.mut, s.val, s.caBundle, err = a.policies(ctx); err == nil {
				out = append(out, s)
			}
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() []sample { close(stop); <-done; return out }
}

// probe sends a server-side dry-run create of obj every 300 ms until the returned
// function is called.
func (a *availability) probe(ctx context.Context, obj *unstructured.Unstructured) func() []outcome {
	var out []outcome
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			o := obj.DeepCopy()
			start := time.Now()
			err := a.c.Create(ctx, o, client.DryRunAll)
			out = append(out, outcome{start, "dry-run create", time.Since(start), err})
			select {
			case <-stop:
				return
			case <-time.After(300 * time.Millisecond):
			}
		}
	}()
	return func() []outcome { close(stop); <-done; return out }
}
