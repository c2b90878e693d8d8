package validate

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// meshRateLimit checks MeshRateLimit as Kuma 2.14's validator does. Which sections a
// policy may use depends on its top-level targetRef: `from` and `rules` limit
// sidecars' inbounds, `to` limits gateways, and a targetRef whose proxies may
// include gateways (MeshGateway, MeshHTTPRoute, or Mesh/MeshSubset without
// proxyTypes: [Sidecar]) takes only `to`. Each conf sets local.http or local.tcp,
// neither empty; rates are at least 1 per more than 50ms; a rule matching a SPIFFE
// ID cannot limit TCP connections (made before the client is known).
func (v *validator) meshRateLimit(s *api.MeshRateLimitSpec, p *field.Path) {
	c := confRules{v: v, kind: v.kind.Kind, code: CodeRateLimitConf}
	// Which sections this target may have is the shared rules' (MG124:
	// 'rules' and 'from' limit sidecars' inbounds, 'to' limits gateways); the
	// confs of a refused section are not looked at.
	if v.sectionOpen("rules") {
		for i, r := range s.Rules {
			rp := p.Child("rules").Index(i)
			if sourceMatches(r.Matches) && r.Default != nil && r.Default.Local != nil && r.Default.Local.TCP != nil {
				c.forbidden(rp.Child("default", "local", "tcp"), "TCP connections are limited before the client's identity is known, so a rule whose matches contain spiffeID cannot set local.tcp; move it to a rule without spiffeID matches")
			}
			c.rateLimitConf(rp.Child("default"), r.Default)
		}
	}
	if v.sectionOpen("from") {
		for i, it := range s.From {
			c.rateLimitConf(p.Child("from").Index(i).Child("default"), it.Default)
		}
	}
	if v.sectionOpen("to") {
		for i, it := range s.To {
			c.rateLimitConf(p.Child("to").Index(i).Child("default"), it.Default)
		}
	}
}

func (c confRules) rateLimitConf(p *field.Path, conf *api.MeshRateLimitConf) {
	lp := p.Child("local")
	if conf == nil || conf.Local == nil {
		c.required(lp, "set local with http or tcp limits")
		return
	}
	l := conf.Local
	if l.HTTP == nil && l.TCP == nil {
		c.required(lp, "set local.http (requests) or local.tcp (connections), or both")
	}
	if h := l.HTTP; h != nil {
		hp := lp.Child("http")
		switch {
		case h.Disabled == nil && h.RequestRate == nil && h.OnRateLimit == nil:
			c.required(hp, "http is empty: set requestRate, onRateLimit or disabled")
		default:
			c.rate(hp.Child("requestRate"), h.RequestRate)
			if o := h.OnRateLimit; o != nil {
				c.onRateLimitStatus(hp.Child("onRateLimit", "status"), o.Status)
			}
		}
	}
	if t := l.TCP; t != nil {
		tp := lp.Child("tcp")
		switch {
		case t.Disabled == nil && t.ConnectionRate == nil:
			c.required(tp, "tcp is empty: set connectionRate or disabled")
		default:
			c.rate(tp.Child("connectionRate"), t.ConnectionRate)
		}
	}
}

// rate is num per interval: at least 1, per more than 50ms. The CRD requires both.
func (c confRules) rate(p *field.Path, r *api.RateLimitRate) {
	if r == nil {
		return
	}
	if n, ok := c.uint32(p.Child("num"), r.Num); ok && n == 0 {
		c.invalid(p.Child("num"), n, "must be greater than 0")
	}
	if d, ok := c.duration(p.Child("interval"), r.Interval); ok && d <= 50*time.Millisecond {
		c.invalid(p.Child("interval"), *r.Interval, "must be more than 50ms; Envoy refills tokens at most every 50ms")
	}
}

// onRateLimitStatus is the status of limited requests: more than 0, and Kuma warns
// below 400 (a limited request should not look successful).
func (c confRules) onRateLimitStatus(p *field.Path, st *int64) {
	n, ok := c.uint32(p, st)
	switch {
	case !ok:
	case n == 0:
		c.invalid(p, n, "must be greater than 0; 429 is the usual status")
	case n < 400:
		c.v.warn(field.Invalid(p, n, fmt.Sprintf("Kuma warns that the status of rate-limited requests must be 400 or higher; %d does not tell the client it was limited (use 429)", n)), CodeResilienceDeprecated)
	}
}
