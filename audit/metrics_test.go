package audit

import (
	"strings"
	"testing"
	"time"

	"context"
	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
)

func TestMetricsObserve(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	r := testResult()
	r.Policies = 6
	m.Observe(r, 2*time.Second, time.Unix(1800000000, 0))
	got := gather(t, reg)
	want := map[string]float64{
		`meshguard_audit_findings{code="MG020",severity="warning"}`: 1,
		`meshguard_audit_findings{code="MG054",severity="warning"}`: 1,
		`meshguard_audit_findings{code="MG102",severity="error"}`:   1,
		`meshguard_audit_findings{code="MG190",severity="warning"}`: 1,
		`meshguard_audit_suppressed_findings{code="MG203"}`:         1,
		`meshguard_audit_policies`:                                  6,
		`meshguard_audit_duration_seconds`:                          2,
		`meshguard_audit_last_success_timestamp_seconds`:            1800000000,
		`meshguard_audit_failures_total`:                            0,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
	// A code the next audit does not find loses its series.
	r.Findings = r.Findings[:1]
	m.Observe(r, time.Second, time.Now())
	n := 0
	for k := range gather(t, reg) {
		if strings.HasPrefix(k, "meshguard_audit_findings{") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d series after the second audit, want 1", n)
	}
}

func TestLoopCountsFailures(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	Loop(ctx, time.Millisecond, m, logr.Discard(), func(context.Context) (Result, error) {
		calls++
		if calls == 3 {
			cancel()
		}
		return Result{}, context.DeadlineExceeded
	})
	if got := gather(t, reg)["meshguard_audit_failures_total"]; got != 2 || calls != 3 {
		t.Errorf("failures %v after %d calls, want 2 (the cancelled run is not a failure)", got, calls)
	}
}

// gather reads reg as "name{label="value",...}" -> value.
func gather(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"=\""+l.GetValue()+"\"")
			}
			key := mf.GetName()
			if len(labels) > 0 {
				key += "{" + strings.Join(labels, ",") + "}"
			}
			v := m.GetGauge().GetValue()
			if m.GetCounter() != nil {
				v = m.GetCounter().GetValue()
			}
			out[key] = v
		}
	}
	return out
}
