package audit

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the gauges a periodic audit keeps current: what the last audit
// found, so an alert can fire on findings that are stored, not only on those
// the webhook saw at admission.
type Metrics struct {
	findings   *prometheus.GaugeVec
	suppressed *prometheus.GaugeVec
	policies   prometheus.Gauge
	lastRun    prometheus.Gauge
	duration   prometheus.Gauge
	failures   prometheus.Counter
}

// NewMetrics registers the audit's metrics with reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		findings: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "meshguard_audit_findings",
			Help: "Findings of the last audit of the stored objects, by rule code and severity (suppressed findings not included)."}, []string{"code", "severity"}),
		suppressed: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "meshguard_audit_suppressed_findings",
			Help: "Findings of the last audit accepted by a suppression (annotation or ignore file), by rule code."}, []string{"code"}),
		policies: prometheus.NewGauge(prometheus.GaugeOpts{Name: "meshguard_audit_policies",
			Help: "Policies read by the last audit."}),
		lastRun: prometheus.NewGauge(prometheus.GaugeOpts{Name: "meshguard_audit_last_success_timestamp_seconds",
			Help: "Unix time the last successful audit finished."}),
		duration: prometheus.NewGauge(prometheus.GaugeOpts{Name: "meshguard_audit_duration_seconds",
			Help: "How long the last successful audit took, reading and linting."}),
		failures: prometheus.NewCounter(prometheus.CounterOpts{Name: "meshguard_audit_failures_total",
			Help: "Audits that failed (the cluster could not be read, or reports not written)."}),
	}
	for _, c := range []prometheus.Collector{m.findings, m.suppressed, m.policies, m.lastRun, m.duration, m.failures} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Observe sets the gauges to r, dropping codes the last audit no longer found.
func (m *Metrics) Observe(r Result, took time.Duration, now time.Time) {
	m.findings.Reset()
	m.suppressed.Reset()
	for _, f := range r.Findings {
		if f.Suppression != nil {
			m.suppressed.WithLabelValues(f.Code).Inc()
			continue
		}
		m.findings.WithLabelValues(f.Code, f.Severity).Inc()
	}
	m.policies.Set(float64(r.Policies))
	m.duration.Set(took.Seconds())
	m.lastRun.Set(float64(now.Unix()))
}

// Failed counts a failed audit.
func (m *Metrics) Failed() { m.failures.Inc() }

// Loop runs audit now and then every interval until ctx ends. A failed audit is
// logged and counted and the loop goes on: the cluster may be back at the next.
func Loop(ctx context.Context, interval time.Duration, m *Metrics, log logr.Logger, audit func(context.Context) (Result, error)) {
	for {
		start := time.Now()
		r, err := audit(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			m.Failed()
			log.Error(err, "audit failed")
		default:
			m.Observe(r, time.Since(start), time.Now())
			log.Info("audit done", "policies", r.Policies, "errors", r.Summary.Errors, "warnings", r.Summary.Warnings,
				"suppressed", r.Summary.Suppressed, "took", time.Since(start).Round(time.Millisecond).String())
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}
