package validate

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// lkParents applies Linkerd's rule for every route kind: an EgressNetwork parent
// names the port the route applies to. A parentRef without a group has the route's
// own group once the API server defaulted it, so on a policy.linkerd.io HTTPRoute
// `kind: EgressNetwork` alone names one, on a Gateway API route it does not.
func (v *validator) lkParents(refs []api.ParentRef, p *field.Path) {
	for i, r := range refs {
		if api.IsEgressNetworkParent(r, v.kind.Group) && r.Port == nil {
			v.err(field.Required(p.Index(i).Child("port"),
				"a route parented to an EgressNetwork must name the port it applies to (e.g. port: 443); Linkerd rejects it otherwise"), CodeLinkerdRouteParent)
		}
	}
}

// lkMeshParent reports whether a parentRef names a Service or an EgressNetwork (with
// the group the API server defaults): the outbound routes whose retry and timeout
// annotations Linkerd parses at admission.
func (v *validator) lkMeshParent(refs []api.ParentRef) bool {
	for _, r := range refs {
		if api.IsEgressNetworkParent(r, v.kind.Group) || api.IsServiceParent(r, v.kind.Group) {
			return true
		}
	}
	return false
}

// lkSingleRule is Linkerd's rule for TCPRoute and TLSRoute: exactly one rule.
func (v *validator) lkSingleRule(n int, p *field.Path) {
	if n != 1 {
		v.err(field.Invalid(p, n, fmt.Sprintf("Linkerd supports exactly one rule on a TCPRoute or TLSRoute, this one has %d; "+
			"put every backend in one rule's backendRefs, or split the route", n)), CodeLinkerdRouteRules)
	}
}

// lkHTTPMatch checks one HTTP request match as Linkerd's index reads it: Exact and
// PathPrefix paths are absolute (no value means "/"), regular expressions compile,
// header names and values are valid HTTP.
func (v *validator) lkHTTPMatch(m api.HTTPRouteMatch, p *field.Path) {
	if pm := m.Path; pm != nil {
		value := "/"
		if pm.Value != nil {
			value = *pm.Value
		}
		vp := p.Child("path", "value")
		switch pm.Type {
		case "RegularExpression":
			v.lkRegex(value, vp)
		default:
			if !strings.HasPrefix(value, "/") {
				v.err(field.Invalid(vp, value, "a path match is absolute: start it with '/' (e.g. \"/"+value+"\")"), CodeLinkerdRouteMatch)
			}
		}
	}
	for i, h := range m.Headers {
		hp := p.Child("headers").Index(i)
		v.lkHeaderName(h.Name, hp.Child("name"))
		if h.Type == "RegularExpression" {
			v.lkRegex(h.Value, hp.Child("value"))
		} else {
			v.lkHeaderValue(h.Value, hp.Child("value"))
		}
	}
	for i, q := range m.QueryParams {
		if q.Type == "RegularExpression" {
			v.lkRegex(q.Value, p.Child("queryParams").Index(i).Child("value"))
		}
	}
}

// lkRegex checks a regular expression Linkerd compiles (Rust's regex crate, whose
// syntax RE2's, Go's, closely follows).
func (v *validator) lkRegex(expr string, p *field.Path) {
	if _, err := regexp.Compile(expr); err != nil {
		v.err(field.Invalid(p, expr, "not a regular expression Linkerd can compile: "+err.Error()), CodeLinkerdRouteMatch)
	}
}

// lkHeaderName checks an HTTP header name: one or more token characters (RFC 9110).
func (v *validator) lkHeaderName(name string, p *field.Path) {
	if !validHeaderName(name) {
		v.err(field.Invalid(p, name, "not a valid HTTP header name: use letters, digits and !#$%&'*+-.^_`|~ only"), CodeLinkerdRouteMatch)
	}
}

// lkHeaderValue checks an HTTP header value: no control characters but tab.
func (v *validator) lkHeaderValue(value string, p *field.Path) {
	for i := 0; i < len(value); i++ {
		if b := value[i]; (b < 32 && b != '\t') || b == 127 {
			v.err(field.Invalid(p, value, "not a valid HTTP header value: it contains a control character"), CodeLinkerdRouteMatch)
			return
		}
	}
}

func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0:
		default:
			return false
		}
	}
	return true
}

// lkHTTPFilter checks the filters Linkerd implements: header modifiers with valid
// names and values, and a redirect whose path modifier replaces the path or prefix
// with an absolute path and whose status code is an HTTP status.
func (v *validator) lkHTTPFilter(f api.HTTPRouteFilter, p *field.Path) {
	v.lkHeaderModifier(f.RequestHeaderModifier, p.Child("requestHeaderModifier"))
	v.lkHeaderModifier(f.ResponseHeaderModifier, p.Child("responseHeaderModifier"))
	r := f.RequestRedirect
	if r == nil {
		return
	}
	rp := p.Child("requestRedirect")
	if pm := r.Path; pm != nil {
		pp := rp.Child("path")
		switch {
		case pm.ReplaceFullPath != nil:
			v.lkAbsolute(*pm.ReplaceFullPath, pp.Child("replaceFullPath"))
		case pm.ReplacePrefixMatch != nil:
			v.lkAbsolute(*pm.ReplacePrefixMatch, pp.Child("replacePrefixMatch"))
		default:
			v.err(field.Required(pp, "a redirect path sets replaceFullPath or replacePrefixMatch; drop path to keep the request's"), CodeLinkerdRouteFilter)
		}
	}
	if c := r.StatusCode; c != nil && (*c < 100 || *c > 999) {
		v.err(field.Invalid(rp.Child("statusCode"), *c, "not an HTTP status code; use 301 or 302"), CodeLinkerdRouteFilter)
	}
}

func (v *validator) lkAbsolute(path string, p *field.Path) {
	if !strings.HasPrefix(path, "/") {
		v.err(field.Invalid(p, path, "a redirect path is absolute: start it with '/' (e.g. \"/"+path+"\")"), CodeLinkerdRouteFilter)
	}
}

func (v *validator) lkHeaderModifier(m *api.RouteHTTPHeaderModifier, p *field.Path) {
	if m == nil {
		return
	}
	for _, l := range []struct {
		name string
		hs   []api.HTTPHeader
	}{{"add", m.Add}, {"set", m.Set}} {
		for i, h := range l.hs {
			hp := p.Child(l.name).Index(i)
			if !validHeaderName(h.Name) {
				v.err(field.Invalid(hp.Child("name"), h.Name, "not a valid HTTP header name: use letters, digits and !#$%&'*+-.^_`|~ only"), CodeLinkerdRouteFilter)
			}
			if strings.ContainsFunc(h.Value, func(r rune) bool { return (r < 32 && r != '\t') || r == 127 }) {
				v.err(field.Invalid(hp.Child("value"), h.Value, "not a valid HTTP header value: it contains a control character"), CodeLinkerdRouteFilter)
			}
		}
	}
	for i, name := range m.Remove {
		if !validHeaderName(name) {
			v.err(field.Invalid(p.Child("remove").Index(i), name, "not a valid HTTP header name: use letters, digits and !#$%&'*+-.^_`|~ only"), CodeLinkerdRouteFilter)
		}
	}
}

// lkBackends applies Linkerd's rule for Gateway API HTTPRoute and GRPCRoute backends:
// a Service backend (no group or the core group, no kind or kind Service) names a
// non-zero port. Backends of other kinds are admitted for other controllers.
func (v *validator) lkBackends(refs []api.GatewayBackendRef, p *field.Path) {
	for i, b := range refs {
		core := b.Group == nil || *b.Group == "" || *b.Group == "core"
		service := b.Kind == nil || *b.Kind == api.KindService
		if core && service && (b.Port == nil || *b.Port == 0) {
			v.err(field.Required(p.Index(i).Child("port"),
				"a Service backend names the port to send to (the Service's port, e.g. port: 8080); Linkerd rejects it otherwise"), CodeLinkerdRouteBackend)
		}
	}
}
