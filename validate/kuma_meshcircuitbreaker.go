package validate

import (
	"github.com/shopspring/decimal"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// meshCircuitBreaker checks MeshCircuitBreaker's confs as Kuma 2.14's validator
// does: each item sets connectionLimits or outlierDetection, limits and detector
// counts are at least 1, durations are more than zero, percentages are 0 to 100, and
// outlier detection names at least one detector.
func (v *validator) meshCircuitBreaker(s *api.MeshCircuitBreakerSpec, p *field.Path) {
	c := confRules{v: v, kind: v.kind.Kind, code: CodeCircuitBreakerConf}
	for i, it := range s.To {
		c.circuitBreakerConf(p.Child("to").Index(i).Child("default"), it.Default)
	}
	for i, it := range s.From {
		c.circuitBreakerConf(p.Child("from").Index(i).Child("default"), it.Default)
	}
	// Kuma 2.14 reports rules' findings under spec.from[i]; meshguard names the rule.
	for i, r := range s.Rules {
		c.circuitBreakerConf(p.Child("rules").Index(i).Child("default"), r.Default)
	}
}

func (c confRules) circuitBreakerConf(p *field.Path, conf *api.MeshCircuitBreakerConf) {
	if conf == nil {
		c.absentDefault(p, "configure connectionLimits or outlierDetection (or both)")
		return
	}
	if conf.ConnectionLimits == nil && conf.OutlierDetection == nil {
		c.required(p, "configure connectionLimits or outlierDetection (or both)")
		return
	}
	if l := conf.ConnectionLimits; l != nil {
		lp := p.Child("connectionLimits")
		c.positiveCount(lp.Child("maxConnections"), l.MaxConnections)
		c.positiveCount(lp.Child("maxConnectionPools"), l.MaxConnectionPools)
		c.positiveCount(lp.Child("maxPendingRequests"), l.MaxPendingRequests)
		c.positiveCount(lp.Child("maxRetries"), l.MaxRetries)
		c.positiveCount(lp.Child("maxRequests"), l.MaxRequests)
	}
	if o := conf.OutlierDetection; o != nil {
		c.outlierDetection(p.Child("outlierDetection"), o)
	}
}

func (c confRules) outlierDetection(p *field.Path, o *api.OutlierDetection) {
	c.positiveDuration(p.Child("interval"), o.Interval)
	c.positiveDuration(p.Child("baseEjectionTime"), o.BaseEjectionTime)
	c.uintPercent(p.Child("maxEjectionPercent"), o.MaxEjectionPercent)
	c.decimalPercent(p.Child("healthyPanicThreshold"), o.HealthyPanicThreshold)
	dp := p.Child("detectors")
	d := o.Detectors
	if d == nil {
		c.required(dp, "outlier detection needs detectors: set at least one of totalFailures, gatewayFailures, localOriginFailures, successRate, failurePercentage")
		return
	}
	if d.TotalFailures == nil && d.GatewayFailures == nil && d.LocalOriginFailures == nil && d.SuccessRate == nil && d.FailurePercentage == nil {
		c.required(dp, "set at least one detector: totalFailures, gatewayFailures, localOriginFailures, successRate or failurePercentage")
		return
	}
	for _, cd := range []struct {
		name string
		d    *api.ConsecutiveDetector
	}{{"totalFailures", d.TotalFailures}, {"gatewayFailures", d.GatewayFailures}, {"localOriginFailures", d.LocalOriginFailures}} {
		if cd.d != nil {
			c.positiveCount(dp.Child(cd.name, "consecutive"), cd.d.Consecutive)
		}
	}
	if sr := d.SuccessRate; sr != nil {
		sp := dp.Child("successRate")
		c.positiveCount(sp.Child("minimumHosts"), sr.MinimumHosts)
		c.positiveCount(sp.Child("requestVolume"), sr.RequestVolume)
		fp := sp.Child("standardDeviationFactor")
		if f, ok := c.decimal(fp, sr.StandardDeviationFactor); ok && f.LessThanOrEqual(decimal.Zero) {
			c.invalid(fp, sr.StandardDeviationFactor.String(), "must be greater than 0 (Kuma's default is \"1.9\")")
		}
	}
	if fp := d.FailurePercentage; fp != nil {
		pp := dp.Child("failurePercentage")
		c.positiveCount(pp.Child("minimumHosts"), fp.MinimumHosts)
		c.positiveCount(pp.Child("requestVolume"), fp.RequestVolume)
		c.uintPercent(pp.Child("threshold"), fp.Threshold)
	}
}
