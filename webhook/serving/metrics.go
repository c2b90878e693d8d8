package serving

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
)

// MetricsOptions say where and how ServeMetrics serves a Prometheus registry for
// a meshguard process that has no controller-runtime manager (the periodic
// audit): over HTTPS to callers the API server authenticates and authorizes, as
// controller-runtime serves the webhook's own metrics, so both pods answer a
// scraper the same way and neither leaks rule codes and counts to any pod that
// reaches its port.
type MetricsOptions struct {
	// Addr is the listen address (":8080"); "0" or "" serves nothing.
	Addr string
	// Secure serves HTTPS with a certificate generated for this process and
	// answers only bearer tokens the API server authenticates (TokenReview) of
	// subjects allowed to GET the /metrics non-resource URL
	// (SubjectAccessReview). False is plain HTTP to whoever reaches the port.
	Secure bool
	// Config and HTTPClient reach the API server that reviews tokens; needed
	// with Secure.
	Config     *rest.Config
	HTTPClient *http.Client
	// Gatherer is what /metrics shows.
	Gatherer prometheus.Gatherer
	// TLS adjusts the server's TLS configuration (minimum version, suites).
	TLS func(*tls.Config)
}

// ServeMetrics starts serving in the background until ctx ends and returns the address
// it listens on (nil when Addr turns serving off). A port that cannot be bound
// or a filter that cannot be built is an error before anything is served.
func ServeMetrics(ctx context.Context, o MetricsOptions, log logr.Logger) (net.Addr, error) {
	if o.Addr == "" || o.Addr == "0" {
		return nil, nil
	}
	handler := promhttp.HandlerFor(o.Gatherer, promhttp.HandlerOpts{})
	var tlsConfig *tls.Config
	if o.Secure {
		if o.Config == nil || o.HTTPClient == nil {
			return nil, errors.New("secure metrics need an API server to review scrapers' tokens")
		}
		filter, err := filters.WithAuthenticationAndAuthorization(o.Config, o.HTTPClient)
		if err != nil {
			return nil, fmt.Errorf("metrics authentication: %w", err)
		}
		if handler, err = filter(log, handler); err != nil {
			return nil, fmt.Errorf("metrics authentication: %w", err)
		}
		if tlsConfig, err = selfSigned(); err != nil {
			return nil, err
		}
		if o.TLS != nil {
			o.TLS(tlsConfig)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", handler)
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if tlsConfig != nil {
		ln = tls.NewListener(ln, tlsConfig)
	}
	serveUntil(ctx, &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 60 * time.Second}, ln, log, "metrics server")
	log.Info("serving metrics", "address", ln.Addr().String(), "secure", o.Secure)
	return ln.Addr(), nil
}

// selfSigned is a TLS configuration with a certificate made for this process,
// as controller-runtime's metrics server makes one when given none: the scraper
// authenticates itself with its token, and a ServiceMonitor scrapes with
// insecureSkipVerify (the chart's example says so).
func selfSigned() (*tls.Config, error) {
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKeyWithFixtures("localhost", []net.IP{{127, 0, 0, 1}}, nil, "")
	if err != nil {
		return nil, fmt.Errorf("metrics certificate: %w", err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("metrics certificate: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// ServeHealth serves /healthz ("ok") on addr until ctx ends, for the kubelet's
// liveness probe: with secure metrics the probe cannot scrape /metrics, which
// answers 401 without a token. "0" or "" serves nothing.
func ServeHealth(ctx context.Context, addr string, log logr.Logger) (net.Addr, error) {
	if addr == "" || addr == "0" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("health probe: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	serveUntil(ctx, &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, ln, log, "health probe server")
	return ln.Addr(), nil
}

// serveUntil serves srv on ln in the background until ctx ends, logging an
// error that is not the server's own closing.
func serveUntil(ctx context.Context, srv *http.Server, ln net.Listener, log logr.Logger, what string) {
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error(err, what)
		}
	}()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
}
