package validate

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// meshTimeout checks MeshTimeout's confs as Kuma 2.14's validator does: every item
// configures a timeout, durations parse and are not negative (connectionTimeout is
// more than zero), a route or gateway target has no `from` and (a route) no
// connection-level timeouts, and a rule conditioned on the client's SPIFFE ID sets
// only timeouts Envoy can apply per request.
func (v *validator) meshTimeout(s *api.MeshTimeoutSpec, p *field.Path) {
	c := confRules{v: v, kind: v.kind.Kind, code: CodeMeshTimeoutConf}
	top := topKind(s.TargetRef)
	// 'from' with a MeshGateway or MeshHTTPRoute target is the shared rules'
	// MG124; its confs are then not looked at.
	if v.sectionOpen("from") {
		for i, it := range s.From {
			c.timeoutConf(p.Child("from").Index(i).Child("default"), it.Default, top)
		}
	}
	for i, it := range s.To {
		c.timeoutConf(p.Child("to").Index(i).Child("default"), it.Default, top)
	}
	for i, r := range s.Rules {
		rp := p.Child("rules").Index(i)
		if sourceMatches(r.Matches) && r.Default != nil {
			c.sourceConditionedTimeouts(rp.Child("default"), r.Default)
		}
		c.timeoutConf(rp.Child("default"), r.Default, top)
	}
}

// timeoutConf checks one item's default.
func (c confRules) timeoutConf(p *field.Path, conf *api.MeshTimeoutConf, top api.RefKind) {
	if conf == nil {
		c.absentDefault(p, "configure at least one timeout: connectionTimeout, idleTimeout or http")
		return
	}
	if conf.ConnectionTimeout == nil && conf.IdleTimeout == nil && conf.HTTP == nil {
		c.required(p, "configure at least one timeout: connectionTimeout, idleTimeout or http")
		return
	}
	if top == api.RefMeshHTTPRoute {
		why := "a MeshTimeout that targets a MeshHTTPRoute configures the route's requests; connection and stream limits belong in a policy that targets the proxies (Mesh, Dataplane)"
		c.notWith(p, why, fieldSet("connectionTimeout", conf.ConnectionTimeout), fieldSet("idleTimeout", conf.IdleTimeout))
		if h := conf.HTTP; h != nil {
			c.notWith(p.Child("http"), why, fieldSet("maxStreamDuration", h.MaxStreamDuration), fieldSet("maxConnectionDuration", h.MaxConnectionDuration))
		}
	}
	c.positiveDuration(p.Child("connectionTimeout"), conf.ConnectionTimeout)
	c.nonNegativeDuration(p.Child("idleTimeout"), conf.IdleTimeout)
	h := conf.HTTP
	if h == nil {
		return
	}
	hp := p.Child("http")
	if h.RequestTimeout == nil && h.StreamIdleTimeout == nil && h.MaxStreamDuration == nil && h.MaxConnectionDuration == nil {
		c.required(hp, "configure at least one of requestTimeout, streamIdleTimeout, maxStreamDuration or maxConnectionDuration (Kuma does not count requestHeadersTimeout here), or remove http")
	}
	c.nonNegativeDuration(hp.Child("requestTimeout"), h.RequestTimeout)
	c.nonNegativeDuration(hp.Child("streamIdleTimeout"), h.StreamIdleTimeout)
	c.nonNegativeDuration(hp.Child("maxStreamDuration"), h.MaxStreamDuration)
	c.nonNegativeDuration(hp.Child("maxConnectionDuration"), h.MaxConnectionDuration)
	c.nonNegativeDuration(hp.Child("requestHeadersTimeout"), h.RequestHeadersTimeout)
}

// sourceConditionedTimeouts reports the timeouts Envoy sets for a whole listener or
// connection, which a rule matching a SPIFFE ID cannot condition on the client.
func (c confRules) sourceConditionedTimeouts(p *field.Path, conf *api.MeshTimeoutConf) {
	why := "Envoy applies this timeout to the whole listener or connection, so it cannot depend on the client's identity: a rule whose matches contain spiffeID cannot set it; move it to a rule without spiffeID matches"
	c.notWith(p, why, fieldSet("connectionTimeout", conf.ConnectionTimeout), fieldSet("idleTimeout", conf.IdleTimeout))
	if h := conf.HTTP; h != nil {
		c.notWith(p.Child("http"), why, fieldSet("requestHeadersTimeout", h.RequestHeadersTimeout),
			fieldSet("maxStreamDuration", h.MaxStreamDuration), fieldSet("maxConnectionDuration", h.MaxConnectionDuration))
	}
}
