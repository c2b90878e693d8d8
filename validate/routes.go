package validate

import (
	"fmt"
	"strings"

	k8svalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"

	"github.com/meshguard/meshguard/api"
)

// httpRoute checks a MeshHTTPRoute: targets, destinations, and each rule's matches,
// filters and backends as Kuma's meshhttproute validator does.
func (v *validator) httpRoute(s *api.MeshHTTPRouteSpec, p *field.Path) {
	v.top(s.TargetRef, p)
	tk := topKind(s.TargetRef)
	for i, to := range s.To {
		tp := p.Child("to").Index(i)
		v.routeTo(to.TargetRef, tp, tk, len(to.Rules))
		if len(to.Hostnames) > 0 && tk != api.RefMeshGateway {
			v.err(field.Forbidden(tp.Child("hostnames"),
				"hostnames only apply to a route on a MeshGateway (top-level targetRef kind MeshGateway); between services the destination is the targetRef. Remove hostnames"), CodeHTTPRoute)
		}
		for j, r := range to.Rules {
			v.httpRule(r, tp.Child("rules").Index(j), tk)
		}
	}
	v.routeHasTo(len(s.To), p)
}

// httpRule checks one rule of a MeshHTTPRoute destination.
func (v *validator) httpRule(r api.HTTPRouteRule, rp *field.Path, tk api.RefKind) {
	for k, m := range r.Matches {
		v.httpMatch(m, rp.Child("matches").Index(k))
	}
	dp := rp.Child("default")
	for k, f := range r.Default.Filters {
		v.httpFilter(f, dp.Child("filters").Index(k), tk, r.Matches)
	}
	var backends []api.BackendRef
	if r.Default.BackendRefs != nil {
		backends = *r.Default.BackendRefs
	}
	if len(backends) == 0 && tk == api.RefMeshGateway && !hasFilter(r.Default.Filters, "RequestRedirect") {
		v.err(field.Required(dp.Child("backendRefs"),
			"a rule of a route on a MeshGateway needs backendRefs (or a RequestRedirect filter): the gateway has nowhere else to send the request"), CodeHTTPRoute)
	}
	for k, b := range backends {
		v.backendRef(b, dp.Child("backendRefs").Index(k), tk)
	}
}

func hasFilter(fs []api.HTTPFilter, typ string) bool {
	for _, f := range fs {
		if f.Type == typ {
			return true
		}
	}
	return false
}

// httpMatch checks a request match: absolute paths without a trailing slash on a
// prefix, unique query parameter names, no value on Present/Absent header matches.
func (v *validator) httpMatch(m api.HTTPMatch, mp *field.Path) {
	if m.Path != nil {
		vp := mp.Child("path", "value")
		switch m.Path.Type {
		case "PathPrefix":
			if m.Path.Value == "/" {
				break
			}
			if strings.HasSuffix(m.Path.Value, "/") {
				v.err(field.Invalid(vp, m.Path.Value, "a PathPrefix needs no trailing slash: it matches whole '/'-separated segments (/api matches /api and /api/x, not /apix); remove the '/'"), CodeHTTPRoute)
			}
			if !strings.HasPrefix(m.Path.Value, "/") {
				v.err(field.Invalid(vp, m.Path.Value, "must be an absolute path starting with '/'"), CodeHTTPRoute)
			}
		case "Exact":
			if !strings.HasPrefix(m.Path.Value, "/") {
				v.err(field.Invalid(vp, m.Path.Value, "must be an absolute path starting with '/'"), CodeHTTPRoute)
			}
		}
	}
	seen := map[string]bool{}
	for i, q := range m.QueryParams {
		if seen[q.Name] {
			v.err(field.Duplicate(mp.Child("queryParams").Index(i).Child("name"), q.Name), CodeHTTPRoute)
		}
		seen[q.Name] = true
	}
	for i, h := range m.Headers {
		if h.Type != nil && (*h.Type == "Present" || *h.Type == "Absent") && h.Value != "" {
			v.err(field.Forbidden(mp.Child("headers").Index(i).Child("value"), fmt.Sprintf(
				"a %s header match tests only whether the header exists; remove value (or use type Exact)", *h.Type)), CodeHTTPRoute)
		}
	}
}

// httpFilter checks one filter: the field its type names is set and sound.
func (v *validator) httpFilter(f api.HTTPFilter, fp *field.Path, tk api.RefKind, matches []api.HTTPMatch) {
	missing := func(name string) {
		v.err(field.Required(fp.Child(name), fmt.Sprintf("a filter of type %s needs its '%s' settings", f.Type, name)), CodeHTTPRoute)
	}
	switch f.Type {
	case "RequestHeaderModifier":
		if f.RequestHeaderModifier == nil {
			missing("requestHeaderModifier")
			return
		}
		v.headerModifier(*f.RequestHeaderModifier, fp.Child("requestHeaderModifier"))
	case "ResponseHeaderModifier":
		if f.ResponseHeaderModifier == nil {
			missing("responseHeaderModifier")
			return
		}
		v.headerModifier(*f.ResponseHeaderModifier, fp.Child("responseHeaderModifier"))
	case "RequestRedirect":
		if f.RequestRedirect == nil {
			missing("requestRedirect")
			return
		}
		rp := fp.Child("requestRedirect")
		v.prefixRewrite(f.RequestRedirect.Path, rp, matches)
		v.preciseHostname(f.RequestRedirect.Hostname, rp.Child("hostname"))
	case "URLRewrite":
		if f.URLRewrite == nil {
			missing("urlRewrite")
			return
		}
		v.urlRewrite(*f.URLRewrite, fp.Child("urlRewrite"), tk, matches)
	case "RequestMirror":
		if f.RequestMirror == nil {
			missing("requestMirror")
			return
		}
		if f.RequestMirror.BackendRef != nil {
			v.backendRefOf(*f.RequestMirror.BackendRef, fp.Child("requestMirror", "backendRef"), tk, v.kind.MirrorRefsIn(v.s.KumaVersion))
		}
	}
}

func (v *validator) urlRewrite(u api.HTTPURLRewrite, up *field.Path, tk api.RefKind, matches []api.HTTPMatch) {
	v.prefixRewrite(u.Path, up, matches)
	v.preciseHostname(u.Hostname, up.Child("hostname"))
	if u.HostToBackendHostname == nil || !*u.HostToBackendHostname {
		return
	}
	hp := up.Child("hostToBackendHostname")
	if tk != api.RefMeshGateway {
		v.err(field.Forbidden(hp, "hostToBackendHostname only works on a route on a MeshGateway; remove it"), CodeHTTPRoute)
	}
	if u.Hostname != nil {
		v.err(field.Forbidden(hp, "hostToBackendHostname and hostname both set the Host header; keep one"), CodeHTTPRoute)
	}
}

// prefixRewrite: replacing the matched prefix needs every match to be a path prefix
// (no matches counts as the prefix '/').
func (v *validator) prefixRewrite(r *api.HTTPPathRewrite, p *field.Path, matches []api.HTTPMatch) {
	if r == nil || r.ReplacePrefixMatch == nil {
		return
	}
	for _, m := range matches {
		if m.Path == nil || m.Path.Type != "PathPrefix" {
			v.err(field.Forbidden(p.Child("path", "replacePrefixMatch"),
				"replacePrefixMatch replaces the matched prefix, so every match of the rule must be a PathPrefix path match; use replaceFullPath or change the matches"), CodeHTTPRoute)
			return
		}
	}
}

// preciseHostname: a DNS name, not an IP address.
func (v *validator) preciseHostname(h *string, p *field.Path) {
	if h == nil {
		return
	}
	if netutils.ParseIPSloppy(*h) != nil {
		v.err(field.Invalid(p, *h, "must be a host name, not an IP address"), CodeHTTPRoute)
		return
	}
	for _, msg := range k8svalidation.IsDNS1123Subdomain(*h) {
		v.err(field.Invalid(p, *h, msg), CodeHTTPRoute)
	}
}

// headerModifier: at least one of set, add and remove, and each header name once
// across all three.
func (v *validator) headerModifier(m api.HTTPHeaderModifier, p *field.Path) {
	if m.Set == nil && m.Add == nil && m.Remove == nil {
		v.err(field.Required(p, "set at least one of 'set', 'add' or 'remove'"), CodeHTTPRoute)
		return
	}
	seen := map[string]bool{}
	name := func(n string, np *field.Path) {
		if seen[n] {
			v.err(field.Invalid(np, n, fmt.Sprintf("header %q is already modified by this filter; each header may appear once across set, add and remove", n)), CodeHTTPRoute)
		}
		seen[n] = true
	}
	for _, l := range []struct {
		k    string
		list *[]api.HTTPHeaderValue
	}{{"set", m.Set}, {"add", m.Add}} {
		if l.list == nil {
			continue
		}
		for i, h := range *l.list {
			name(h.Name, p.Child(l.k).Index(i).Child("name"))
		}
	}
	if m.Remove != nil {
		for i, n := range *m.Remove {
			name(n, p.Child("remove").Index(i))
		}
	}
}

// tcpRoute checks a MeshTCPRoute the same way: every rule needs backends.
func (v *validator) tcpRoute(s *api.MeshTCPRouteSpec, p *field.Path) {
	v.top(s.TargetRef, p)
	tk := topKind(s.TargetRef)
	for i, to := range s.To {
		tp := p.Child("to").Index(i)
		v.routeTo(to.TargetRef, tp, tk, len(to.Rules))
		for j, r := range to.Rules {
			bp := tp.Child("rules").Index(j).Child("default", "backendRefs")
			if len(r.Default.BackendRefs) == 0 {
				v.err(field.Required(bp, "a MeshTCPRoute rule needs backendRefs: the connection has nowhere else to go"), CodeTCPRoute)
			}
			for k, b := range r.Default.BackendRefs {
				v.backendRef(b, bp.Index(k), tk)
			}
		}
	}
	v.routeHasTo(len(s.To), p)
}

// routeHasTo warns about a route without destinations: Kuma accepts it, and it
// routes nothing.
func (v *validator) routeHasTo(n int, p *field.Path) {
	if n == 0 {
		v.warn(field.Required(p.Child("to"), fmt.Sprintf("%s routes nothing without 'to'; Kuma accepts it, but it has no effect", v.kind.Kind)), CodeNoEffect)
	}
}

// routeTo checks one route destination: its targetRef and that it has rules.
func (v *validator) routeTo(r *api.TargetRef, tp *field.Path, top api.RefKind, rules int) {
	if rules == 0 && !v.schemaAnswered {
		v.err(field.Required(tp.Child("rules"), "a route destination needs at least one rule"), CodeSpecShape)
	}
	if r == nil {
		v.err(field.Required(tp.Child("targetRef"), "each 'to' item needs a targetRef naming the destination"), CodeRefField)
		return
	}
	v.ref(*r, tp.Child("targetRef"), placeTo, v.kind.ToKindsIn(top, v.s.KumaVersion), CodeToKind)
}

// backendRef checks a route backend and the policy-on-namespace MADR's cross-namespace rule: a route
// attached to a MeshGateway outside the system namespace may only forward to its own
// namespace, otherwise it would open a path from the edge into any namespace (the
// ReferenceGrant problem). Such a route also gets MG105 (it belongs in the system
// namespace), and in the system namespace any backend namespace is allowed, so the
// advice here is the one that satisfies both: move the route, keep the backend.
func (v *validator) backendRef(b api.BackendRef, p *field.Path, top api.RefKind) {
	v.backendRefOf(b, p, top, v.kind.BackendRefs)
}

func (v *validator) backendRefOf(b api.BackendRef, p *field.Path, top api.RefKind, kinds []api.RefKind) {
	if !v.ref(b.AsTargetRef(), p, placeBackend, kinds, CodeBackendKind) {
		return
	}
	if b.Kind == api.RefMeshMultiZoneService && b.Port == nil {
		v.err(field.Required(p.Child("port"), "a MeshMultiZoneService backend needs a port"), CodeRefField)
	}
	if b.Port != nil && (*b.Port < 1 || *b.Port > 65535) {
		v.warn(field.Invalid(p.Child("port"), *b.Port, "no service listens on this port: ports are 1 to 65535 (Kuma accepts it, the route then fails)"), CodeNoEffect)
	}
	if top != api.RefMeshGateway || v.system() {
		return // the mesh operator may route anywhere from the system namespace
	}
	if b.Namespace != "" && b.Namespace != v.ns {
		v.err(field.Forbidden(p.Child("namespace"), fmt.Sprintf(
			"a route attached to a MeshGateway in namespace %q may not send traffic to namespace %q: that would let gateway traffic reach any namespace. Only the mesh operator may, from the system namespace %q, where a route on a MeshGateway belongs anyway (MG105): move the route there and keep this backend",
			v.ns, b.Namespace, v.s.SystemNamespace)), CodeCrossNamespace)
	}
}
