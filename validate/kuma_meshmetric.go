package validate

import (
	"fmt"
	"regexp"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// meshMetric runs Kuma 2.14's MeshMetric conf rules on `default`: Regex selectors of
// the sidecar profiles must compile (Go syntax), application and Prometheus ports are
// 1-65535, each backend's own section must be there, and an OpenTelemetry collector
// is a MeshOpenTelemetryBackend or a host:port endpoint. Kuma accepts an absent or
// empty default (the proxy's defaults apply).
func (v *validator) meshMetric(s *api.MeshMetricSpec, p *field.Path) {
	c := s.Default
	if c == nil {
		return
	}
	o := obsRules{v: v, code: CodeMetricConf}
	dp := p.Child("default")
	if c.Sidecar != nil && c.Sidecar.Profiles != nil {
		pp := dp.Child("sidecar", "profiles")
		o.metricSelectors(obsItems(c.Sidecar.Profiles.Exclude), pp.Child("exclude"))
		o.metricSelectors(obsItems(c.Sidecar.Profiles.Include), pp.Child("include"))
	}
	for i, a := range obsItems(c.Applications) {
		if a.Port != nil && !validPort(*a.Port) {
			o.invalid(dp.Child("applications").Index(i).Child("port"), *a.Port, "must be a port from 1 to 65535: the port the application serves its metrics on")
		}
	}
	for i, b := range obsItems(c.Backends) {
		o.metricBackend(b, dp.Child("backends").Index(i))
	}
}

// metricSelectors: a Regex selector's match must be a Go regular expression.
func (o obsRules) metricSelectors(sel []api.MetricSelector, p *field.Path) {
	for i, s := range sel {
		if s.Type != api.MetricRegex {
			continue
		}
		if _, err := regexp.Compile(s.Match); err != nil {
			o.invalid(p.Index(i).Child("match"), s.Match, fmt.Sprintf("is not a regular expression Kuma can compile (Go syntax): %v", err))
		}
	}
}

func (o obsRules) metricBackend(b api.MetricBackend, p *field.Path) {
	switch b.Type {
	case api.MetricPrometheus:
		if b.Prometheus == nil {
			o.required(p.Child("prometheus"), "a backend of type Prometheus needs 'prometheus' (an empty object {} listens on the default port 5670)")
			return
		}
		// Kuma reports the port on the backend itself, not under prometheus; so does
		// meshguard, so that both point at the same place. An absent port is the
		// CRD's default, 5670.
		if n := b.Prometheus.Port; n != nil && !validPort(*n) {
			o.invalid(p, *n, fmt.Sprintf("prometheus.port %d is not a port; use 1-65535 (default 5670)", *n))
		}
	case api.MetricOtel:
		op := p.Child("openTelemetry")
		if b.OpenTelemetry == nil {
			o.required(op, "a backend of type OpenTelemetry needs 'openTelemetry' with backendRef (or the deprecated endpoint host:port)")
			return
		}
		o.v.otelBackend(b.OpenTelemetry.Endpoint, b.OpenTelemetry.BackendRef, op, true)
		if ri := b.OpenTelemetry.RefreshInterval; ri != nil {
			if _, err := time.ParseDuration(*ri); err != nil {
				o.invalid(op.Child("refreshInterval"), *ri, "Kuma cannot read this as a duration; write a number with a unit, e.g. 30s or 1m")
			}
		}
	}
}
