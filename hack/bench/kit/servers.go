package kit

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/meshguard/meshguard/webhook/serving"
	"github.com/meshguard/meshguard/webhook/serving/servingtest"
)

// Serve starts a controller-runtime webhook server on a free loopback port with
// the certificates in certDir, serving handler on path, and returns its URL once
// it accepts TLS connections. The server stops when ctx ends.
func Serve(ctx context.Context, certDir, path string, handler http.Handler) (string, error) {
	base, err := ServeAll(ctx, certDir, map[string]http.Handler{path: handler})
	if err != nil {
		return "", err
	}
	return base + path, nil
}

// ServeAll is Serve for several paths on one server (a peer answering both of
// meshguard's paths); it returns the server's base URL, https://127.0.0.1:port.
func ServeAll(ctx context.Context, certDir string, handlers map[string]http.Handler) (string, error) {
	port, err := servingtest.FreeLoopbackPort()
	if err != nil {
		return "", err
	}
	srv := crwebhook.NewServer(crwebhook.Options{Host: "127.0.0.1", Port: port, CertDir: certDir, TLSOpts: serving.TLSOptions(false)})
	for path, h := range handlers {
		srv.Register(path, h)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Start(ctx) }()
	started := srv.StartedChecker()
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case err := <-errc:
			return "", fmt.Errorf("webhook server on port %d stopped: %v", port, err)
		case <-time.After(10 * time.Millisecond):
		}
		if started(nil) == nil {
			return "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("webhook server on port %d did not start within 10s", port)
		}
	}
}

// NewClient returns an HTTP/1.1 client trusting roots that keeps up to conns
// connections per server alive, as the API server's webhook client does.
func NewClient(roots *x509.CertPool, conns int, timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			TLSClientConfig:     &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}},
			ForceAttemptHTTP2:   false,
			MaxIdleConns:        4 * conns,
			MaxIdleConnsPerHost: conns,
			MaxConnsPerHost:     conns,
			IdleConnTimeout:     time.Minute,
			DisableCompression:  true,
		},
	}
}
