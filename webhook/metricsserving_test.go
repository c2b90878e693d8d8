package webhook

import (
	"strings"
	"testing"
)

// TestMetricsOptions: secure metrics are HTTPS behind the authentication and
// authorization filter; plain HTTP only when asked for.
func TestMetricsOptions(t *testing.T) {
	m := metricsOptions(Options{MetricsAddr: ":8080", MetricsSecure: true})
	if !m.SecureServing || m.FilterProvider == nil || m.BindAddress != ":8080" {
		t.Errorf("secure: %+v, want HTTPS with a filter", m)
	}
	m = metricsOptions(Options{MetricsAddr: ":8080"})
	if m.SecureServing || m.FilterProvider != nil {
		t.Errorf("--metrics-secure=false: %+v, want plain HTTP", m)
	}
}

// TestCheckMetricsAndSchema: an offline server cannot authenticate scrapers; a
// --schema-check value outside auto, always, never is refused.
func TestCheckMetricsAndSchema(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
		want string // "" for no error
	}{
		{"defaults", Options{MetricsAddr: ":8080", MetricsSecure: true, SchemaCheck: SchemaCheckAuto}, ""},
		{"offline, metrics off", Options{Offline: true, MetricsAddr: "0", MetricsSecure: true}, ""},
		{"offline, plain metrics asked for", Options{Offline: true, MetricsAddr: ":8080"}, ""},
		{"offline, secure metrics", Options{Offline: true, MetricsAddr: ":8080", MetricsSecure: true}, "--metrics-bind-address 0"},
		{"always", Options{SchemaCheck: SchemaCheckAlways}, ""},
		{"never", Options{SchemaCheck: SchemaCheckNever}, ""},
		{"sometimes", Options{SchemaCheck: "sometimes"}, "--schema-check must be auto, always or never"},
	} {
		err := tc.o.checkMetricsAndSchema()
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
