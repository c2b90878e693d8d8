package validate

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// lkHTTPRoute applies Linkerd's admission rules to its own policy.linkerd.io
// HTTPRoute (every version): EgressNetwork parents name a port; the retry and timeout
// annotations of an outbound route parse; matches and filters are ones Linkerd's
// index can read; rule timeouts are not negative and the backend request timeout
// fits in the request timeout.
func (v *validator) lkHTTPRoute(s *api.LinkerdHTTPRouteSpec, obj *unstructured.Unstructured, p *field.Path) {
	v.lkParents(s.ParentRefs, p.Child("parentRefs"))
	if v.lkMeshParent(s.ParentRefs) {
		v.lkRouteAnnotations(obj, false)
	}
	for i, r := range s.Rules {
		rp := p.Child("rules").Index(i)
		v.lkHTTPRule(r.Matches, r.Filters, rp)
		v.lkTimeouts(r.Timeouts, rp.Child("timeouts"))
	}
}

// lkHTTPRule checks the matches and filters of an HTTPRoute rule, which Linkerd reads
// alike on its own HTTPRoute and on the Gateway API's.
func (v *validator) lkHTTPRule(ms []api.HTTPRouteMatch, fs []api.HTTPRouteFilter, rp *field.Path) {
	for j, m := range ms {
		v.lkHTTPMatch(m, rp.Child("matches").Index(j))
	}
	for j, f := range fs {
		v.lkHTTPFilter(f, rp.Child("filters").Index(j))
	}
}

// lkTimeouts checks a policy.linkerd.io HTTPRoute rule's timeouts.
func (v *validator) lkTimeouts(t *api.HTTPRouteTimeouts, p *field.Path) {
	if t == nil {
		return
	}
	parse := func(s *string, name string) (time.Duration, bool) {
		if s == nil {
			return 0, false
		}
		d, err := time.ParseDuration(*s)
		switch {
		case err != nil:
			v.err(field.Invalid(p.Child(name), *s, "not a duration; write e.g. 10s or 1m30s"), CodeLinkerdRouteTimeouts)
			return 0, false
		case d < 0:
			v.err(field.Invalid(p.Child(name), *s, "a timeout must not be negative"), CodeLinkerdRouteTimeouts)
			return 0, false
		}
		return d, true
	}
	req, okReq := parse(t.Request, "request")
	backend, okBackend := parse(t.BackendRequest, "backendRequest")
	if okReq && okBackend && backend > req {
		v.err(field.Invalid(p.Child("backendRequest"), *t.BackendRequest,
			fmt.Sprintf("the backend request timeout must not exceed the request timeout (%s); lower it or raise request", *t.Request)), CodeLinkerdRouteTimeouts)
	}
}
