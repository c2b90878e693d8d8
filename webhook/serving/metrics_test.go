package serving

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/rest"
)

func registry(t *testing.T) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewRegistry()
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "meshguard_test_gauge", Help: "a gauge"})
	g.Set(7)
	reg.MustRegister(g)
	return reg
}

func fetch(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestPlainServesTheRegistry: --metrics-secure=false is plain HTTP with the
// registry's metrics; "0" serves nothing.
func TestPlainServesTheRegistry(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, err := ServeMetrics(ctx, MetricsOptions{Addr: "127.0.0.1:0", Gatherer: registry(t)}, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	code, body := fetch(t, http.DefaultClient, "http://"+addr.String()+"/metrics")
	if code != http.StatusOK || !strings.Contains(body, "meshguard_test_gauge 7") {
		t.Errorf("plain: %d %q", code, body)
	}
	if addr, err := ServeMetrics(ctx, MetricsOptions{Addr: "0"}, logr.Discard()); addr != nil || err != nil {
		t.Errorf("0: %v %v, want nothing served", addr, err)
	}
}

// TestSecureRefusesWithoutAToken: secure metrics are HTTPS only, with the TLS
// adjustments applied, and a request without a bearer token is 401 before any
// API server is asked; plain HTTP on the port gets no metrics.
func TestSecureRefusesWithoutAToken(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := &rest.Config{Host: "https://127.0.0.1:1"} // never reached without a token
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	o := MetricsOptions{Addr: "127.0.0.1:0", Secure: true, Config: cfg, HTTPClient: hc, Gatherer: registry(t),
		TLS: func(c *tls.Config) { c.MinVersion = tls.VersionTLS13 }}
	addr, err := ServeMetrics(ctx, o, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	insecure := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // self-signed
	code, body := fetch(t, insecure, "https://"+addr.String()+"/metrics")
	if code != http.StatusUnauthorized || strings.Contains(body, "meshguard_test_gauge") {
		t.Errorf("no token: %d %q, want 401 and no metrics", code, body)
	}
	tls12 := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MaxVersion: tls.VersionTLS12}}} //nolint:gosec // self-signed
	if _, err := tls12.Get("https://" + addr.String() + "/metrics"); err == nil {
		t.Error("TLS 1.2 accepted though the TLS adjustment asked for 1.3")
	}
	if resp, err := http.Get("http://" + addr.String() + "/metrics"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Error("plain HTTP answered 200")
		}
	}
	if _, err := ServeMetrics(ctx, MetricsOptions{Addr: "127.0.0.1:0", Secure: true, Gatherer: registry(t)}, logr.Discard()); err == nil {
		t.Error("secure without an API server: no error")
	}
}

// TestHealth: /healthz answers ok, for the kubelet's probe.
func TestHealth(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, err := ServeHealth(ctx, "127.0.0.1:0", logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	if code, body := fetch(t, http.DefaultClient, "http://"+addr.String()+"/healthz"); code != http.StatusOK || body != "ok" {
		t.Errorf("healthz: %d %q", code, body)
	}
	if _, err := ServeHealth(ctx, addr.String(), logr.Discard()); err == nil {
		t.Error("a port in use: no error")
	}
}
