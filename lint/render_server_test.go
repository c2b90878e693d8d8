package lint

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// countingServer is a loopback HTTP server that answers every request with a
// valid manifest and counts the requests, so a test can assert that nothing
// was fetched.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fetched\ndata:\n  token: FETCHED_SECRET\n"))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}
