package serving

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
)

// DefaultIdleTimeout is how long the webhook server keeps an idle keep-alive
// connection open. It is longer than the keep-alive of the API server's webhook
// client (client-go's transport: Go's 90 s IdleConnTimeout), so the client is always
// the side that closes an idle connection. A server that closes first (or at the
// same moment, 90 s against 90 s) races with the client sending its next request
// into the closing connection, and a POST is not retried: the write fails with
// "connection reset" or EOF after an idle gap, the failure GitOps dry-runs meet
// with Linkerd's webhook (linkerd2 #13197).
const DefaultIdleTimeout = 120 * time.Second

// Server is the HTTPS server of the admission handlers. It replaces
// controller-runtime's webhook server (whose mux it still uses, for the request
// metrics) for what an always-on webhook needs: idle connections outlive the API
// server's keep-alive (DefaultIdleTimeout); while Draining is set, and once
// stopping, every answer carries "Connection: close", so the API server's pooled
// keep-alive connections to this replica end after their next request, cleanly,
// and its next requests open new connections that the Service (or load balancer)
// sends to a ready replica; on stop, open connections are served until their
// clients close them instead of being closed under them (stop); and requests in
// flight keep their context (controller-runtime cancels it with the manager's).
type Server struct {
	Host    string
	Port    int
	CertDir string
	TLSOpts []func(*tls.Config)
	// IdleTimeout of keep-alive connections (0: DefaultIdleTimeout).
	IdleTimeout time.Duration
	// HeaderTimeout bounds the TLS handshake and a request's headers (0:
	// DefaultHeaderTimeout).
	HeaderTimeout time.Duration
	// MaxConnections is how many connections are kept open; at the cap a new one
	// evicts the one that has sent nothing the longest (connCap). 0: sized from
	// the Go memory limit (ConnectionCap).
	MaxConnections int
	// ShutdownTimeout is how long requests in flight get once the server stops.
	ShutdownTimeout time.Duration
	// Draining, when set, makes every answer close its connection.
	Draining *atomic.Bool
	Log      logr.Logger

	// routes registers the handlers: controller-runtime's server, used only for
	// its mux, which instruments each handler with the
	// controller_runtime_webhook_* metrics; it never listens.
	routes   crwebhook.Server
	once     sync.Once
	started  atomic.Bool
	stopping atomic.Bool
}

func (s *Server) mux() *http.ServeMux {
	s.once.Do(func() { s.routes = crwebhook.NewServer(crwebhook.Options{}) })
	return s.routes.WebhookMux()
}

// Register serves h on path, with request metrics; call it before Start.
func (s *Server) Register(path string, h http.Handler) {
	s.mux()
	s.routes.Register(path, h)
}

// NeedLeaderElection is false: every replica serves.
func (s *Server) NeedLeaderElection() bool { return false }

// Handler is the server's handler: the registered paths, with "Connection: close"
// on every answer that starts while draining (a request that arrived before
// SIGTERM and is answered after it too).
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mux().ServeHTTP(&drainWriter{ResponseWriter: w, draining: s.Draining, stopping: &s.stopping}, r)
	})
}

// drainWriter adds "Connection: close" to an answer written while draining:
// net/http then closes the connection after it, and the client, seeing the
// header, does not reuse it.
type drainWriter struct {
	http.ResponseWriter
	draining, stopping *atomic.Bool
	wrote              bool
}

func (d *drainWriter) WriteHeader(code int) {
	if !d.wrote {
		d.wrote = true
		if (d.draining != nil && d.draining.Load()) || d.stopping.Load() {
			d.Header().Set("Connection", "close")
		}
	}
	d.ResponseWriter.WriteHeader(code)
}

func (d *drainWriter) Write(b []byte) (int, error) {
	if !d.wrote {
		d.WriteHeader(http.StatusOK)
	}
	return d.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (read deadlines).
func (d *drainWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }

// Start serves until ctx ends, then stops accepting and serves the open
// connections until their clients close them, at most ShutdownTimeout (stop).
func (s *Server) Start(ctx context.Context) error {
	cfg := &tls.Config{NextProtos: []string{"h2", "http/1.1"}}
	for _, op := range s.TLSOpts {
		op(cfg)
	}
	cw, err := certwatcher.New(filepath.Join(s.CertDir, "tls.crt"), filepath.Join(s.CertDir, "tls.key"))
	if err != nil {
		return fmt.Errorf("loading the serving certificate: %w", err)
	}
	go func() {
		if err := cw.Start(ctx); err != nil {
			s.Log.Error(err, "certificate watcher")
		}
	}()
	cfg.GetCertificate = cw.GetCertificate
	tcp, err := net.Listen("tcp", net.JoinHostPort(s.Host, strconv.Itoa(s.Port)))
	if err != nil {
		return err
	}
	conns := newConnCap(s.maxConnections())
	srv := s.httpServer(ctx, conns)
	ln := newTLSListener(tcp, cfg, conns, srv.ReadHeaderTimeout, runtime.GOMAXPROCS(0))
	var open atomic.Int64
	srv.ConnState = func(c net.Conn, st http.ConnState) {
		conns.connState(c, st)
		switch st {
		case http.StateNew:
			open.Add(1)
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		s.stop(srv, ln, &open)
	}()
	s.started.Store(true)
	s.Log.Info("serving webhooks", "host", s.Host, "port", s.Port, "idleTimeout", srv.IdleTimeout,
		"headerTimeout", srv.ReadHeaderTimeout, "maxConnections", conns.max)
	err = srv.Serve(ln)
	if err != nil && !errors.Is(err, http.ErrServerClosed) && !(s.stopping.Load() && errors.Is(err, net.ErrClosed)) {
		return err
	}
	<-stopped
	return nil
}

// maxConnections is MaxConnections, or the cap the Go memory limit allows.
func (s *Server) maxConnections() int {
	if s.MaxConnections > 0 {
		return s.MaxConnections
	}
	return ConnectionCap(debug.SetMemoryLimit(-1))
}

// httpServer is the server's net/http configuration: handshake and headers
// within HeaderTimeout, idle connections kept IdleTimeout, and each request's
// context telling the connection cap when the request is being answered.
func (s *Server) httpServer(ctx context.Context, conns *connCap) *http.Server {
	idle := s.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	header := s.HeaderTimeout
	if header <= 0 {
		header = DefaultHeaderTimeout
	}
	return &http.Server{
		Handler:        s.Handler(),
		MaxHeaderBytes: 1 << 20,
		// net/http bounds the TLS handshake by the shortest of its timeouts: this one.
		ReadHeaderTimeout: header,
		IdleTimeout:       idle,
		// Requests keep their own context: the end of ctx must not cancel the
		// answers Shutdown is waiting for.
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		ConnContext: conns.withPhaseSetter,
		// net/http logs every failed handshake and cut connection: under a flood
		// of them, thousands of lines a second on stderr, written by the process
		// that must keep answering. They go to the logger at debug level.
		ErrorLog: log.New(debugWriter{s.Log.V(1)}, "", 0),
	}
}

// debugWriter writes net/http's server log lines to a logr logger (at the
// verbosity it was given).
type debugWriter struct{ log logr.Logger }

func (w debugWriter) Write(p []byte) (int, error) {
	if w.log.Enabled() {
		w.log.Info(strings.TrimSpace(string(p)))
	}
	return len(p), nil
}

// stop closes the listener, then serves the connections still open until their
// clients close them, for at most ShutdownTimeout: every answer now closes its
// connection, and an idle keep-alive connection is left for the client to close
// (at its own idle timeout) rather than closed under it — a client can pick an
// idle connection for its next request at the moment the server closes it, and a
// POST that was written is not retried. Only at the deadline is what is left
// shut down: idle connections closed, requests in flight given one more second.
func (s *Server) stop(srv *http.Server, ln net.Listener, open *atomic.Int64) {
	s.stopping.Store(true)
	_ = ln.Close()
	deadline := time.Now().Add(s.ShutdownTimeout)
	s.Log.Info("stopped listening; serving open connections until their clients close them", "open", open.Load(), "atMost", s.ShutdownTimeout)
	for open.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := open.Load(); n > 0 {
		s.Log.Info("closing connections still open at the shutdown timeout", "open", n)
	}
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		s.Log.Error(err, "requests still in flight when the shutdown timeout ended")
		_ = srv.Close()
	}
}

// StartedChecker is a readiness check: the server is started and accepts a TLS
// handshake on its port.
func (s *Server) StartedChecker() healthz.Checker {
	return func(*http.Request) error {
		if !s.started.Load() {
			return errors.New("webhook server not started yet")
		}
		host := s.Host
		if host == "" {
			host = "127.0.0.1"
		}
		d := &net.Dialer{Timeout: 10 * time.Second}
		conn, err := tls.DialWithDialer(d, "tcp", net.JoinHostPort(host, strconv.Itoa(s.Port)), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // a reachability check, not trust
		if err != nil {
			return fmt.Errorf("webhook server not reachable: %w", err)
		}
		return conn.Close()
	}
}
