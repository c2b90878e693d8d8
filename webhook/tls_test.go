package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/meshguard/meshguard/webhook/serving"
	"github.com/meshguard/meshguard/webhook/serving/servingtest"
)

// tlsServer runs the engine's handlers on the product's webhook server (serving.Server)
// over TLS, with the product's TLS settings, and returns a client and the base URL.
func tlsServer(t *testing.T, eng *Handlers) (*http.Client, string) {
	t.Helper()
	dir := t.TempDir()
	pool := servingtest.WriteCert(t, dir)
	port := servingtest.FreePort(t)
	srv := &serving.Server{Host: "127.0.0.1", Port: port, CertDir: dir, ShutdownTimeout: 5 * time.Second,
		TLSOpts: serving.TLSOptions(false)}
	for path, h := range Routes(eng, serving.NewBodyLimiter(serving.BodyLimits{})) {
		srv.Register(path, h)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	// The server serves open connections until their clients close them (as the API
	// server does with idle ones): the test's client closes its own first.
	t.Cleanup(func() { client.CloseIdleConnections(); cancel(); <-done })
	base := fmt.Sprintf("https://127.0.0.1:%d", port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port), &tls.Config{RootCAs: pool})
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhook server did not start: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return client, base
}

// post sends an AdmissionReview and returns the decoded response and HTTP status.
func post(t *testing.T, c *http.Client, url string, body []byte) (*admissionv1.AdmissionResponse, int) {
	t.Helper()
	resp, err := c.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var rev admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&rev); err != nil {
		t.Fatalf("response is not an AdmissionReview: %v", err)
	}
	if rev.Response == nil {
		t.Fatal("AdmissionReview without response")
	}
	return rev.Response, resp.StatusCode
}

// TestTLS12OnlyAEADSuites handshakes with the product's webhook server as a TLS 1.2
// client offering one suite at a time: the ECDHE AEAD suites are accepted, the CBC
// suites Go still enables by default are refused, and TLS 1.3 works.
func TestTLS12OnlyAEADSuites(t *testing.T) {
	_, base := tlsServer(t, testEngine())
	addr := strings.TrimPrefix(base, "https://")
	for _, tc := range []struct {
		name  string
		suite uint16
		max   uint16
		ok    bool
	}{
		{"ECDHE-ECDSA-AES128-GCM-SHA256", tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.VersionTLS12, true},
		{"ECDHE-ECDSA-AES256-GCM-SHA384", tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, tls.VersionTLS12, true},
		{"ECDHE-ECDSA-CHACHA20-POLY1305", tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, tls.VersionTLS12, true},
		{"ECDHE-ECDSA-AES128-SHA (CBC)", tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, tls.VersionTLS12, false},
		{"ECDHE-ECDSA-AES256-SHA (CBC)", tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA, tls.VersionTLS12, false},
		{"TLS 1.3", 0, tls.VersionTLS13, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conf := &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12, MaxVersion: tc.max} //nolint:gosec // the suite is under test, not trust
			if tc.suite != 0 {
				conf.CipherSuites = []uint16{tc.suite}
			}
			c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, conf)
			if err == nil {
				defer c.Close()
			}
			if ok := err == nil; ok != tc.ok {
				t.Fatalf("handshake succeeded=%v, want %v (err %v)", ok, tc.ok, err)
			}
			if err == nil && tc.suite != 0 && c.ConnectionState().CipherSuite != tc.suite {
				t.Errorf("negotiated %s", tls.CipherSuiteName(c.ConnectionState().CipherSuite))
			}
		})
	}
}
