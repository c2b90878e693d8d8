package webhook

import (
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
)

// TestOptionsRefuseNegativeBounds: a negative connection cap or request bound is
// a usage error naming the flags, not a server that refuses every connection.
func TestOptionsRefuseNegativeBounds(t *testing.T) {
	base := Options{Settings: api.DefaultSettings(), Port: 9443, CertDir: t.TempDir(), Offline: true}
	if err := base.Check(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for name, set := range map[string]func(*Options){
		"--max-connections":     func(o *Options) { o.MaxConnections = -1 },
		"--request-body-budget": func(o *Options) { o.RequestBodyBudget = -1 },
	} {
		o := base
		set(&o)
		if err := o.Check(); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s negative: %v", name, err)
		}
	}
	o := base
	o.RequestMinBodyRate = -1 // off: only the read timeout counts
	if err := o.Check(); err != nil {
		t.Errorf("a negative --request-min-body-rate turns the rate off: %v", err)
	}
}
