package validate

import (
	"fmt"
	"net/http"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// meshRetry checks MeshRetry's confs as Kuma 2.14's validator does: each item sets
// tcp, http or grpc and none of them is empty, back-offs set an interval, a
// rate-limited back-off names its reset headers, http.retryOn items are conditions
// or HTTP status codes, and host selection predicates are complete and
// OmitPreviousPriorities appears once. (The CRD checks grpc.retryOn, predicate
// names and reset header names.)
func (v *validator) meshRetry(s *api.MeshRetrySpec, p *field.Path) {
	c := confRules{v: v, kind: v.kind.Kind, code: CodeRetryConf}
	for i, it := range s.To {
		c.retryConf(p.Child("to").Index(i).Child("default"), it.Default)
	}
}

func (c confRules) retryConf(p *field.Path, conf *api.MeshRetryConf) {
	if conf == nil {
		c.absentDefault(p, "configure retries for at least one of tcp, http or grpc")
		return
	}
	if conf.TCP == nil && conf.HTTP == nil && conf.GRPC == nil {
		c.required(p, "configure retries for at least one of tcp, http or grpc")
		return
	}
	if t := conf.TCP; t != nil {
		tp := p.Child("tcp")
		if t.MaxConnectAttempt == nil {
			c.required(tp, "tcp is empty: set maxConnectAttempt, or remove tcp")
		} else if n, ok := c.uint32(tp.Child("maxConnectAttempt"), t.MaxConnectAttempt); ok && n == 0 {
			c.invalid(tp.Child("maxConnectAttempt"), n, "must be greater than 0")
		}
	}
	if h := conf.HTTP; h != nil {
		c.retryHTTP(p.Child("http"), h)
	}
	if g := conf.GRPC; g != nil {
		gp := p.Child("grpc")
		if g.NumRetries == nil && g.PerTryTimeout == nil && g.BackOff == nil && g.RetryOn == nil && g.RateLimitedBackOff == nil {
			c.required(gp, "grpc is empty: set numRetries, perTryTimeout, backOff, rateLimitedBackOff or retryOn, or remove grpc")
		}
		c.uint32(gp.Child("numRetries"), g.NumRetries)
		c.duration(gp.Child("perTryTimeout"), g.PerTryTimeout)
		c.backOff(gp.Child("backOff"), g.BackOff)
		c.rateLimitedBackOff(gp.Child("rateLimitedBackOff"), g.RateLimitedBackOff)
	}
}

func (c confRules) retryHTTP(p *field.Path, h *api.RetryHTTP) {
	if h.NumRetries == nil && h.PerTryTimeout == nil && h.BackOff == nil && h.RetryOn == nil &&
		h.RetriableRequestHeaders == nil && h.RetriableResponseHeaders == nil &&
		h.RateLimitedBackOff == nil && h.HostSelection == nil {
		c.required(p, "http is empty: set numRetries, perTryTimeout, backOff, rateLimitedBackOff, retryOn, retriableRequestHeaders, retriableResponseHeaders or hostSelection, or remove http")
	}
	c.uint32(p.Child("numRetries"), h.NumRetries)
	c.duration(p.Child("perTryTimeout"), h.PerTryTimeout)
	c.backOff(p.Child("backOff"), h.BackOff)
	c.rateLimitedBackOff(p.Child("rateLimitedBackOff"), h.RateLimitedBackOff)
	if h.RetryOn != nil {
		for i, on := range *h.RetryOn {
			if !httpRetryOn(on) {
				c.invalid(p.Child("retryOn").Index(i), on, "unknown retry condition; use 5xx, GatewayError, Reset, Retriable4xx, ConnectFailure, EnvoyRatelimited, RefusedStream, Http3PostConnectFailure, HttpMethod<Method> (e.g. HttpMethodGet) or an HTTP status code such as \"503\"")
			}
		}
	}
	if h.HostSelection != nil {
		c.hostSelection(p.Child("hostSelection"), *h.HostSelection)
	}
}

// httpRetryOn reports whether Kuma knows an http.retryOn item: a named condition,
// an HTTP method, or a number that is a known HTTP status code.
func httpRetryOn(s string) bool {
	switch s {
	case "5xx", "GatewayError", "Reset", "Retriable4xx", "ConnectFailure", "EnvoyRatelimited",
		"RefusedStream", "Http3PostConnectFailure", "HttpMethodConnect", "HttpMethodDelete",
		"HttpMethodGet", "HttpMethodHead", "HttpMethodOptions", "HttpMethodPatch", "HttpMethodPost",
		"HttpMethodPut", "HttpMethodTrace":
		return true
	}
	n, err := strconv.Atoi(s)
	return err == nil && http.StatusText(n) != ""
}

// backOff needs at least one interval.
func (c confRules) backOff(p *field.Path, b *api.RetryBackOff) {
	if b == nil {
		return
	}
	if b.BaseInterval == nil && b.MaxInterval == nil {
		c.required(p, "backOff is empty: set baseInterval or maxInterval, or remove backOff")
	}
	c.duration(p.Child("baseInterval"), b.BaseInterval)
	c.duration(p.Child("maxInterval"), b.MaxInterval)
}

// rateLimitedBackOff needs its reset headers and a positive maxInterval.
func (c confRules) rateLimitedBackOff(p *field.Path, r *api.RateLimitedBackOff) {
	if r == nil {
		return
	}
	c.positiveDuration(p.Child("maxInterval"), r.MaxInterval)
	if r.ResetHeaders == nil {
		c.required(p.Child("resetHeaders"), "name the headers that say when to retry, e.g. [{name: retry-after, format: Seconds}]")
	}
}

// hostSelection checks the predicates: tags for OmitHostsWithTags, a positive
// updateFrequency and a single OmitPreviousPriorities.
func (c confRules) hostSelection(p *field.Path, preds []api.RetryPredicate) {
	priorities := false
	for i, pr := range preds {
		ip := p.Index(i)
		switch pr.Predicate {
		case "OmitHostsWithTags":
			if pr.Tags == nil {
				c.required(ip.Child("tags"), "OmitHostsWithTags needs the tags of the hosts to skip")
			}
		case "OmitPreviousPriorities":
			if priorities {
				c.forbidden(ip.Child("predicate"), "OmitPreviousPriorities may appear only once; remove this one")
			}
			priorities = true
			// Absent, the API server defaults updateFrequency to 2.
			if n, ok := c.int32(ip.Child("updateFrequency"), pr.UpdateFrequency); ok && n <= 0 {
				c.invalid(ip.Child("updateFrequency"), n, fmt.Sprintf("must be greater than zero (it is %d); remove it to use 2", n))
			}
		}
	}
}
