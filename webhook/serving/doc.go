// Package serving is meshguard's HTTPS serving machinery, apart from what the
// webhook decides: the admission server that outlives the API server's
// keep-alive and drains cleanly (Server), its TLS listener that handshakes off
// the accept loop, the connection cap sized from the memory limit, the request
// body lanes and budget (BodyLimiter), the TLS settings every meshguard server
// uses (TLSOptions), and metrics and health endpoints for a process without a
// controller-runtime manager (ServeMetrics, ServeHealth). It knows nothing of
// AdmissionReviews: the webhook package registers its handlers on it.
package serving
