package validate

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// MTPActions are the accepted `from[].default.action` spellings: the MeshTrafficPermission MADR's and Kuma's.
func MTPActions() []string {
	return []string{"ALLOW", "DENY", "ALLOW_WITH_SHADOW_DENY", "DENY_WITH_SHADOW_ALLOW", "Allow", "Deny", "AllowWithShadowDeny"}
}

// mtp checks a MeshTrafficPermission in either generation.
func (v *validator) mtp(s *api.MeshTrafficPermissionSpec, p *field.Path) {
	v.top(s.TargetRef, p)
	tk := topKind(s.TargetRef)
	hasMatchers := len(s.Rules) > 0 || s.Default != nil
	if len(s.From) > 0 && hasMatchers {
		which := "rules"
		if s.Default != nil {
			which = "default"
		}
		v.err(field.Forbidden(p.Child(which), "use either 'from' (client groups by tags) or SPIFFE matchers ('rules'/'default'), not both; split them into two policies"), CodeMTPForm)
	}
	if len(s.Rules) > 0 && s.Default != nil {
		v.err(field.Forbidden(p.Child("default"), "'default' and 'rules' are two spellings of the same matcher lists; keep one"), CodeMTPForm)
	}
	for i, it := range s.From {
		ip := p.Child("from").Index(i)
		if it.TargetRef != nil {
			tp := ip.Child("targetRef")
			if v.ref(*it.TargetRef, tp, placeFrom, v.kind.From, CodeFromKind) {
				v.deprecatedRef(*it.TargetRef, tp, placeFrom)
			}
			if it.TargetRef.Mesh != "" {
				v.crossMesh(it.TargetRef.Mesh, tp.Child("mesh"), tk)
			}
		}
		ap := ip.Child("default", "action")
		switch {
		case it.Default.Action == "":
			v.err(field.Required(ap, "set action to one of "+strings.Join(MTPActions(), ", ")), CodeMTPAction)
		case !contains(MTPActions(), it.Default.Action):
			e := field.NotSupported(ap, it.Default.Action, MTPActions())
			if s := api.Suggest(it.Default.Action, MTPActions()); s != "" {
				e.Detail = fmt.Sprintf("did you mean %q? Supported values: %s", s, quoteJoin(MTPActions()))
			}
			v.err(e, CodeMTPAction)
		}
	}
	for i, r := range s.Rules {
		v.matchers(r.Default, p.Child("rules").Index(i).Child("default"))
	}
	if s.Default != nil {
		v.matchers(*s.Default, p.Child("default"))
	}
	v.requireSomething(len(s.From) > 0 || hasMatchers, p)
}

// crossMesh enforces the MeshTrafficPermission MADR: clients of another mesh may only be named when the
// policy targets a MeshGatewayRoute (the cross-mesh gateway).
func (v *validator) crossMesh(mesh string, p *field.Path, top api.RefKind) {
	if top != api.RefMeshGatewayRoute {
		v.err(field.Forbidden(p, fmt.Sprintf(
			"clients of another mesh (%q) can only be allowed on a cross-mesh MeshGatewayRoute, a top-level target Kuma 2.14's MeshTrafficPermission CRD does not accept; remove mesh", mesh)), CodeCrossMesh)
		return
	}
	if !meshNameRE.MatchString(mesh) || len(mesh) > api.MaxMeshNameLength {
		v.err(field.Invalid(p, mesh, "a mesh name may only contain lower-case letters, digits, '-', '_' and '.'"), CodeCrossMesh)
	}
}

func (v *validator) matchers(m api.MTPMatches, p *field.Path) {
	if m.Deny == nil && m.Allow == nil && m.AllowWithShadowDeny == nil {
		v.err(field.Required(p, "add at least one of 'deny', 'allowWithShadowDeny' or 'allow'"), CodeSpecShape)
		return
	}
	for _, l := range []struct {
		name string
		list *[]api.SpiffeMatch
	}{{"deny", m.Deny}, {"allowWithShadowDeny", m.AllowWithShadowDeny}, {"allow", m.Allow}} {
		if l.list == nil {
			continue
		}
		for i, x := range *l.list {
			v.matcher(x, p.Child(l.name).Index(i))
		}
	}
}

func (v *validator) matcher(m api.SpiffeMatch, p *field.Path) {
	if m.SpiffeId != nil && m.SpiffeID != nil {
		v.err(field.Forbidden(p.Child("spiffeId"), "spiffeId and spiffeID are the same condition; keep one"), CodeSpiffe)
	}
	sm, key := m.Spiffe()
	if sm == nil && m.Method == "" && m.Path == nil {
		v.err(field.Required(p, "an empty matcher matches every request; add spiffeID (and optionally method/path)"), CodeSpiffe)
		return
	}
	if sm != nil {
		sp := p.Child(key)
		switch sm.Type {
		case "Exact", "Prefix":
			if msg := spiffeProblem(sm.Value, sm.Type == "Prefix"); msg != "" {
				v.err(field.Invalid(sp.Child("value"), sm.Value, msg), CodeSpiffe)
			}
		case "":
			v.err(field.Required(sp.Child("type"), "set type to Exact or Prefix"), CodeSpiffe)
		default:
			v.err(field.NotSupported(sp.Child("type"), sm.Type, []string{"Exact", "Prefix"}), CodeSpiffe)
		}
	}
	if m.Method != "" && !contains([]string{"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}, m.Method) {
		v.err(field.NotSupported(p.Child("method"), m.Method, []string{"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}), CodeSpiffe)
	}
	if m.Path != nil {
		pp := p.Child("path")
		if m.Path.Type != "Exact" && m.Path.Type != "Prefix" {
			v.err(field.NotSupported(pp.Child("type"), m.Path.Type, []string{"Exact", "Prefix"}), CodeSpiffe)
		}
		if !strings.HasPrefix(m.Path.Value, "/") {
			v.err(field.Invalid(pp.Child("value"), m.Path.Value, "a path must start with '/'"), CodeSpiffe)
		}
	}
}

// spiffeProblem checks a SPIFFE ID (or ID prefix) against the SPIFFE ID spec:
// scheme spiffe, a lower-case trust domain, path segments of [A-Za-z0-9.-_] that are
// neither empty nor "." or "..", no query, fragment, port or user info. A prefix may
// end with "/". It returns "" when the value is fine.
func spiffeProblem(id string, prefix bool) string {
	const scheme = "spiffe://"
	if !strings.HasPrefix(id, scheme) {
		return "a SPIFFE ID starts with spiffe:// followed by the trust domain, e.g. spiffe://trust-domain.mesh/ns/default/sa/frontend"
	}
	if len(id) > 2048 {
		return "a SPIFFE ID is at most 2048 bytes"
	}
	rest := id[len(scheme):]
	td, path, hasPath := strings.Cut(rest, "/")
	if td == "" {
		return "the trust domain after spiffe:// is missing"
	}
	for _, c := range td {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return fmt.Sprintf("the trust domain %q may only contain lower-case letters, digits, '.', '-' and '_' (no port, user info or upper case)", td)
		}
	}
	if !hasPath {
		return ""
	}
	if path == "" {
		if prefix {
			return ""
		}
		return "an Exact SPIFFE ID must not end with '/'; remove it or use type Prefix"
	}
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if s == "" {
			if prefix && i == len(segs)-1 {
				continue
			}
			return "SPIFFE ID path segments must not be empty ('//' or a trailing '/')"
		}
		if s == "." || s == ".." {
			return "SPIFFE ID path segments must not be '.' or '..'"
		}
		for _, c := range s {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
				return fmt.Sprintf("SPIFFE ID path segment %q may only contain letters, digits, '.', '-' and '_'", s)
			}
		}
	}
	return ""
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
