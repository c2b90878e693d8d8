package validate

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// meshGatewayRoute applies Kuma's MeshGatewayRoute validator: selectors of gateways
// that name a service, and a TCP or HTTP route whose rules Kuma can program.
func (v *validator) meshGatewayRoute(s *api.MeshGatewayRouteSpec, p *field.Path) {
	v.kumaSelectors(s.Selectors, p.Child("selectors"), false, CodeMeshGatewayRoute)
	cp := p.Child("conf")
	c := s.Conf
	switch {
	case c == nil || c.TCP == nil && c.HTTP == nil:
		v.err(field.Required(cp, "a gateway route needs conf with a tcp or an http route"), CodeMeshGatewayRoute)
		return
	case c.TCP != nil && c.HTTP != nil:
		v.err(field.Forbidden(cp, "conf is either tcp or http, not both (Kuma cannot decode both); split them into two routes"), CodeMeshGatewayRoute)
	}
	if c.HTTP != nil {
		v.gatewayHTTPRoute(c.HTTP, cp.Child("http"))
	}
}

func (v *validator) gatewayHTTPRoute(r *api.GatewayHTTPRoute, p *field.Path) {
	if len(r.Rules) == 0 {
		v.err(field.Required(p.Child("rules"), "an http route needs at least one rule (matches and backends)"), CodeMeshGatewayRoute)
		return
	}
	for i, rule := range r.Rules {
		v.gatewayHTTPRule(rule, p.Child("rules").Index(i))
	}
}

// gatewayHTTPRule checks one rule: its matches, its filters (a redirect stands alone
// and forwards nowhere) and its backends.
func (v *validator) gatewayHTTPRule(r api.GatewayHTTPRule, p *field.Path) {
	if len(r.Matches) == 0 {
		v.err(field.Required(p.Child("matches"), "a rule needs at least one match (a path prefix \"/\" matches every request)"), CodeMeshGatewayRoute)
		return
	}
	prefix := false
	for i, m := range r.Matches {
		v.gatewayHTTPMatch(m, p.Child("matches").Index(i))
		if m.Path != nil {
			name, _ := api.GatewayPathMatchTypes().Name(m.Path.Match)
			prefix = prefix || name == "PREFIX"
		}
	}
	hostRewrite, redirect := false, false
	for _, f := range r.Filters {
		hostRewrite = hostRewrite || f.Rewrite != nil && f.Rewrite.HostToBackendHostname
	}
	for i, f := range r.Filters {
		if f.Rewrite != nil && f.Rewrite.HostToBackendHostname {
			continue // Kuma sets this filter aside before it checks the others
		}
		redirect = redirect || f.Redirect != nil
		v.gatewayHTTPFilter(f, p.Child("filters").Index(i), prefix, hostRewrite)
	}
	bp := p.Child("backends")
	switch {
	case redirect && len(r.Filters) != 1:
		v.err(field.Invalid(p.Child("filters"), len(r.Filters), "a redirect filter cannot be combined with other filters; make it the rule's only filter"), CodeMeshGatewayRoute)
		return
	case redirect && len(r.Backends) > 0:
		v.err(field.Forbidden(bp, "a redirecting rule forwards nowhere; remove its backends"), CodeMeshGatewayRoute)
	case !redirect && len(r.Backends) == 0:
		v.err(field.Required(bp, "list at least one backend (destination with kuma.io/service)"), CodeMeshGatewayRoute)
	}
	for i, b := range r.Backends {
		v.gatewayBackend(&b, bp.Index(i))
	}
}

// gatewayBackend checks a backend's destination: tags that select a kuma.io/service.
func (v *validator) gatewayBackend(b *api.GatewayBackend, p *field.Path) {
	if b == nil {
		v.err(field.Required(p, "set the backend (destination with kuma.io/service)"), CodeMeshGatewayRoute)
		return
	}
	v.gatewayTags(b.Destination, p.Child("destination"), true, CodeMeshGatewayRoute)
}

// gatewayHTTPMatch checks one match: not empty, an absolute path (or a regex), and
// header and query matches with a name and, where compared, a value.
func (v *validator) gatewayHTTPMatch(m api.GatewayHTTPMatch, p *field.Path) {
	method, ok := api.HTTPMethods().Name(m.Method)
	if !ok {
		v.err(field.NotSupported(p.Child("method"), string(m.Method), api.HTTPMethods()[1:]), CodeMeshGatewayRoute)
	}
	if m.Path == nil && method == "NONE" && len(m.Headers) == 0 && len(m.QueryParameters) == 0 {
		v.err(field.Required(p, "a match needs a path, method, header or query parameter"), CodeMeshGatewayRoute)
	}
	if m.Path != nil {
		pp := p.Child("path", "value")
		kind, ok := api.GatewayPathMatchTypes().Name(m.Path.Match)
		switch {
		case !ok:
			v.err(field.NotSupported(p.Child("path", "match"), string(m.Path.Match), api.GatewayPathMatchTypes()), CodeMeshGatewayRoute)
		case kind == "REGEX" && m.Path.Value == "":
			v.err(field.Required(pp, "a regex path match needs a regex"), CodeMeshGatewayRoute)
		case kind != "REGEX" && m.Path.Value != "/" && !strings.HasPrefix(m.Path.Value, "/"):
			v.err(field.Invalid(pp, m.Path.Value, "a path match is an absolute path; start it with '/'"), CodeMeshGatewayRoute)
		}
	}
	for i, h := range m.Headers {
		hp := p.Child("headers").Index(i)
		kind, ok := api.GatewayHeaderMatchTypes().Name(h.Match)
		if !ok {
			v.err(field.NotSupported(hp.Child("match"), string(h.Match), api.GatewayHeaderMatchTypes()), CodeMeshGatewayRoute)
		}
		if h.Name == "" {
			v.err(field.Required(hp.Child("name"), "name the header to match"), CodeMeshGatewayRoute)
		}
		switch {
		case (kind == "ABSENT" || kind == "PRESENT") && h.Value != "":
			v.err(field.Forbidden(hp.Child("value"), fmt.Sprintf("a %s match compares no value; remove it", kind)), CodeMeshGatewayRoute)
		case kind != "ABSENT" && kind != "PRESENT" && h.Value == "":
			v.err(field.Required(hp.Child("value"), "set the value to compare (or match PRESENT or ABSENT)"), CodeMeshGatewayRoute)
		}
	}
	for i, q := range m.QueryParameters {
		qp := p.Child("queryParameters").Index(i)
		if _, ok := api.GatewayQueryMatchTypes().Name(q.Match); !ok {
			v.err(field.NotSupported(qp.Child("match"), string(q.Match), api.GatewayQueryMatchTypes()), CodeMeshGatewayRoute)
		}
		if q.Name == "" {
			v.err(field.Required(qp.Child("name"), "name the query parameter to match"), CodeMeshGatewayRoute)
		}
		if q.Value == "" {
			v.err(field.Required(qp.Child("value"), "set the value to compare"), CodeMeshGatewayRoute)
		}
	}
}

// gatewayHTTPFilter checks one filter: exactly one kind of filter, and that kind's
// contents as Kuma checks them (response header filters it does not check).
func (v *validator) gatewayHTTPFilter(f api.GatewayHTTPFilter, p *field.Path, prefix, hostRewrite bool) {
	set := 0
	for _, ok := range []bool{f.RequestHeader != nil, f.Mirror != nil, f.Redirect != nil, f.Rewrite != nil, f.ResponseHeader != nil} {
		if ok {
			set++
		}
	}
	if set > 1 {
		v.err(field.Forbidden(p, "a filter is one of requestHeader, responseHeader, mirror, redirect or rewrite (Kuma cannot decode more); split it into several filters"), CodeMeshGatewayRoute)
	}
	if r := f.RequestHeader; r != nil {
		rp := p.Child("requestHeader")
		if len(r.Set) == 0 && len(r.Add) == 0 && len(r.Remove) == 0 {
			v.err(field.Required(rp, "set, add or remove at least one header, or remove the filter"), CodeMeshGatewayRoute)
		}
		v.gatewayHeaders(r.Set, rp.Child("set"), hostRewrite)
		v.gatewayHeaders(r.Add, rp.Child("add"), hostRewrite)
		for i, h := range r.Remove {
			if h == "" {
				v.err(field.Required(rp.Child("remove").Index(i), "name the header to remove"), CodeMeshGatewayRoute)
			}
		}
	}
	if r := f.Redirect; r != nil {
		rp := p.Child("redirect")
		if r.Port > 65535 {
			v.err(field.Invalid(rp.Child("port"), r.Port, "a redirect port is in 1-65535 (0 keeps the request's port)"), CodeMeshGatewayRoute)
		}
		if r.StatusCode < 300 || r.StatusCode > 308 {
			v.err(field.Invalid(rp.Child("statusCode"), r.StatusCode, "a redirect's status code is in 300-308 (e.g. 301 or 302)"), CodeMeshGatewayRoute)
		}
		v.gatewayRewriteOneOf(r.Path, rp.Child("path"))
	}
	if m := f.Mirror; m != nil {
		mp := p.Child("mirror")
		switch {
		case m.Percentage == nil:
			v.err(field.Required(mp.Child("percentage"), "set the percentage of requests to mirror (0-100)"), CodeMeshGatewayRoute)
		case *m.Percentage < 0 || *m.Percentage > 100:
			v.err(field.Invalid(mp.Child("percentage"), *m.Percentage, "a percentage is in 0-100"), CodeMeshGatewayRoute)
		}
		v.gatewayBackend(m.Backend, mp.Child("backend"))
	}
	if r := f.Rewrite; r != nil {
		wp := p.Child("rewrite")
		v.gatewayRewriteOneOf(r, wp)
		if r.ReplacePrefixMatch != nil && !prefix {
			v.err(field.Forbidden(wp.Child("replacePrefixMatch"), "replacing the matched prefix needs a match on a path prefix in this rule; use replaceFull or add a PREFIX path match"), CodeMeshGatewayRoute)
		}
	}
}

// gatewayRewriteOneOf reports a rewrite with both path forms, which Kuma's decoder
// refuses (a proto oneof).
func (v *validator) gatewayRewriteOneOf(r *api.GatewayRewrite, p *field.Path) {
	if r != nil && r.ReplaceFull != nil && r.ReplacePrefixMatch != nil {
		v.err(field.Forbidden(p.Child("replacePrefixMatch"), "a rewrite replaces the full path or the matched prefix, not both; keep one"), CodeMeshGatewayRoute)
	}
}

// gatewayHeaders checks the headers a filter sets or adds: named, with a value, and
// not the host header when the rule rewrites the host to the backend's.
func (v *validator) gatewayHeaders(hs []api.GatewayHeader, p *field.Path, hostRewrite bool) {
	for i, h := range hs {
		hp := p.Index(i)
		switch h.Name {
		case ":authority", "Host", "host":
			if hostRewrite {
				v.err(field.Forbidden(hp.Child("name"), fmt.Sprintf(
					"the rule rewrites the host to the backend's hostname (rewrite.hostToBackendHostname), so it cannot also set %q; drop one of them", h.Name)), CodeMeshGatewayRoute)
			}
		case "":
			v.err(field.Required(hp.Child("name"), "name the header"), CodeMeshGatewayRoute)
		}
		if h.Value == "" {
			v.err(field.Required(hp.Child("value"), "set the header's value"), CodeMeshGatewayRoute)
		}
	}
}
