//go:build e2e

package e2e

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/e2e/localcp"
)

func streamPolicy(i int) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTimeout",
		"metadata": map[string]any{"name": fmt.Sprintf("stream-%04d", i), "namespace": "stream-ns"},
		"spec": map[string]any{"to": []any{map[string]any{
			"targetRef": map[string]any{"kind": "MeshService", "name": "svc"},
			"default":   map[string]any{"idleTimeout": "1h"}}}},
	}}
	return u
}

// TestRestartDuringStream kills meshguard (as a crash would) in the middle of a
// stream of creates and starts it again. With failurePolicy Fail the API server must
// refuse what it cannot check, never store an unchecked or undefaulted policy, and
// admit again once meshguard is back.
func TestRestartDuringStream(t *testing.T) {
	st := local(t)
	if err := ensureNS("stream-ns"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	type result struct {
		at  time.Time
		err error
	}
	var mu sync.Mutex
	var results []result
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			err := env.client.Create(ctx, streamPolicy(i))
			mu.Lock()
			results = append(results, result{time.Now(), err})
			mu.Unlock()
		}
	}()
	time.Sleep(2 * time.Second)
	killedAt := time.Now()
	st.Meshguard.Kill()
	time.Sleep(2 * time.Second)
	if err := st.Meshguard.Start(); err != nil {
		t.Fatal(err)
	}
	if err := st.Meshguard.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	readyAt := time.Now()
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()

	var before, during, after, refused, otherErr int
	for _, r := range results {
		switch {
		case r.at.Before(killedAt):
			before++
		case r.at.Before(readyAt):
			during++
		default:
			after++
		}
		if r.err != nil {
			if strings.Contains(r.err.Error(), "failed calling webhook") {
				refused++
			} else {
				otherErr++
				t.Logf("unexpected error: %v", r.err)
			}
			if r.at.Before(killedAt) || r.at.After(readyAt.Add(time.Second)) {
				t.Errorf("request at %s failed while meshguard was up: %v", r.at.Format(time.StampMilli), r.err)
			}
		}
	}
	t.Logf("requests: %d before the kill, %d while down or restarting, %d after ready; %d refused by failurePolicy Fail, %d other errors",
		before, during, after, refused, otherErr)
	if refused == 0 || after == 0 || otherErr != 0 {
		t.Errorf("want refusals while down and successes after restart (refused %d, after %d, other %d)", refused, after, otherErr)
	}
	l := &unstructured.UnstructuredList{}
	l.SetAPIVersion("kuma.io/v1alpha1")
	l.SetKind("MeshTimeoutList")
	if err := env.client.List(ctx, l, client.InNamespace("stream-ns")); err != nil {
		t.Fatal(err)
	}
	for _, u := range l.Items {
		if u.GetLabels()[api.LabelPolicyRole] != "producer" {
			t.Errorf("%s was stored without meshguard's mutation: %v", u.GetName(), u.GetLabels())
		}
	}
	t.Logf("%d policies stored, every one mutated", len(l.Items))
}

// servingCert returns the certificate meshguard serves right now: a fingerprint
// (cert-controller gives every serving cert serial 1) and its validity.
func servingCert(t *testing.T, m *localcp.Meshguard) (fingerprint string, notBefore, notAfter time.Time) {
	t.Helper()
	c, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", m.Port), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // reading the cert, not trusting it
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	leaf := c.ConnectionState().PeerCertificates[0]
	return fmt.Sprintf("%x", sha256.Sum256(leaf.Raw))[:16], leaf.NotBefore, leaf.NotAfter
}

// TestCertRotation watches the serving certificate (one-minute validity in this
// suite) being replaced without a restart, then admits a policy with the new one.
func TestCertRotation(t *testing.T) {
	st := local(t)
	serial, nb, na := servingCert(t, st.Meshguard)
	// cert-controller backdates NotBefore by an hour for clock skew; what matters
	// is how soon it expires.
	if left := time.Until(na); left > 5*time.Minute {
		t.Fatalf("serving cert expires in %s; the suite asked for a one-minute validity", left)
	}
	t.Logf("serving cert %s valid %s..%s", serial, nb.Format(time.TimeOnly), na.Format(time.TimeOnly))
	deadline := time.Now().Add(90 * time.Second)
	var next string
	for time.Now().Before(deadline) {
		var na2 time.Time
		if next, _, na2 = servingCert(t, st.Meshguard); next != serial {
			t.Logf("new serving cert expires %s", na2.Format(time.TimeOnly))
			break
		}
		time.Sleep(time.Second)
	}
	if next == serial {
		t.Fatal("serving certificate was not rotated within 90s")
	}
	t.Logf("rotated without restart: certificate %s -> %s", serial, next)
	if err := ensureNS("rotation-ns"); err != nil {
		t.Fatal(err)
	}
	p := streamPolicy(1)
	p.SetNamespace("rotation-ns")
	if err := env.client.Create(context.Background(), p); err != nil {
		t.Fatalf("admission after rotation: %v", err)
	}
	if got := get(t, "MeshTimeout", "rotation-ns", p.GetName()); got.GetLabels()[api.LabelPolicyRole] != "producer" {
		t.Errorf("not mutated after rotation: %v", got.GetLabels())
	}
}

// TestMetrics reads meshguard's Prometheus endpoint after the other tests: the
// webhook request counters and meshguard's findings counter are there.
func TestMetrics(t *testing.T) {
	st := local(t)
	// One denial first: counters start empty after the restart test.
	namespaces(t, load(t, repo("examples/invalid/from-and-to.yaml")))
	if _, _, err := kubectl(t, "", "apply", "-f", repo("examples/invalid/from-and-to.yaml")); err == nil {
		t.Fatal("invalid example admitted")
	}
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", st.Meshguard.MetricsPort))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, want := range []string{"controller_runtime_webhook_requests_total", "controller_runtime_webhook_latency_seconds",
		`meshguard_admission_findings_total{code="MG102",kind="MeshTimeout",severity="error"}`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
