package validate

import (
	"fmt"
	"strings"

	k8svalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// MTPActions are the `from[].default.action` values Kuma 2.14's CRD accepts. The
// MeshTrafficPermission MADR's upper-case spellings (ALLOW, DENY_WITH_SHADOW_ALLOW...)
// are outside the CRD's enum, so a cluster refuses them; only the RBAC compiler's own
// examples still read them (compile.ParseAction).
func MTPActions() []string {
	return []string{"Allow", "Deny", "AllowWithShadowDeny"}
}

// mtp checks a MeshTrafficPermission: the rules every policy shares, then Kuma's
// MeshTrafficPermission validator (from or rules, actions, spiffeID and sni matchers)
// and its deprecation of `from`.
func (v *validator) mtp(s *api.MeshTrafficPermissionSpec, p *field.Path) {
	v.mtpUnstored(s, p)
	v.policy(s, p)
	v.mtpSections(s, p)
	tk := topKind(s.TargetRef)
	for i, it := range s.From {
		v.mtpFrom(it, p.Child("from").Index(i), tk)
	}
	for i := range s.Rules {
		v.mtpRule(s.Rules[i].Default, p.Child("rules").Index(i))
	}
}

// mtpSections are Kuma's whole-spec rules: `from` or `rules`, not both, and `from` is
// deprecated.
func (v *validator) mtpSections(s *api.MeshTrafficPermissionSpec, p *field.Path) {
	// Neither section (an empty list counts as none) is the shared rules' MG020.
	if len(s.From) > 0 && len(s.Rules) > 0 {
		v.err(field.Forbidden(p.Child("rules"), "use either 'from' (client groups by targetRef) or 'rules' (spiffeID/sni matchers), not both; split them into two policies"), CodeMTPForm)
	}
	if len(s.From) > 0 && !api.KumaBefore(v.s.KumaVersion, fromDeprecatedSince) {
		v.warn(field.Invalid(p.Child("from"), field.OmitValueType{},
			"'from' is deprecated in Kuma 2.14 and will be removed in Kuma 3.0; write the permissions as 'rules' whose allow/deny matchers name the clients' SPIFFE IDs (spiffeID, from MeshIdentity)"), CodeMTPFromDeprecated)
	}
}

// mtpFrom checks one `from` item beyond its targetRef (which policy checks).
func (v *validator) mtpFrom(it api.MTPFrom, ip *field.Path, tk api.RefKind) {
	if it.TargetRef != nil && it.TargetRef.Mesh != "" {
		v.crossMesh(it.TargetRef.Mesh, ip.Child("targetRef", "mesh"), tk)
	}
	ap := ip.Child("default", "action")
	switch a := it.Default.Action; {
	case a == "":
		v.err(field.Required(ap, "set the action to one of "+strings.Join(MTPActions(), ", ")), CodeMTPAction)
	case contains(MTPActions(), a) || v.schemaSaid(ap):
	default:
		e := field.NotSupported(ap, a, MTPActions())
		if s := api.Suggest(a, MTPActions()); s != "" {
			e.Detail = fmt.Sprintf("did you mean %q? Supported values: %s", s, quoteJoin(MTPActions()))
		}
		v.err(e, CodeMTPAction)
	}
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

// mtpLists names a rule's three matcher lists in Kuma's order of checking.
func mtpLists(m api.MTPMatches) []struct {
	name string
	list *[]api.SpiffeMatch
} {
	return []struct {
		name string
		list *[]api.SpiffeMatch
	}{{"allow", m.Allow}, {"allowWithShadowDeny", m.AllowWithShadowDeny}, {"deny", m.Deny}}
}

// mtpRule checks one `rules` item: some matcher in some list, and every matcher.
func (v *validator) mtpRule(m api.MTPMatches, rp *field.Path) {
	if m.Empty() {
		v.err(field.Required(rp, "the rule has no matcher; add at least one to 'allow', 'allowWithShadowDeny' or 'deny'"), CodeSpecShape)
	}
	dp := rp.Child("default")
	// Kuma builds one predicate per list (allow and allowWithShadowDeny together in
	// the enforced matcher, allowWithShadowDeny alone in the shadow one, deny alone)
	// from the matchers that have a condition; when none has, the predicate is empty
	// and Envoy refuses the whole RBAC filter.
	noCondition := map[string]bool{
		"allow":               allEmpty(m.Allow) && allEmpty(m.AllowWithShadowDeny),
		"allowWithShadowDeny": allEmpty(m.AllowWithShadowDeny),
		"deny":                allEmpty(m.Deny),
	}
	for _, l := range mtpLists(m) {
		if l.list == nil {
			continue
		}
		for i, x := range *l.list {
			v.mtpMatcher(x, dp.Child(l.name).Index(i), noCondition[l.name])
		}
	}
}

// allEmpty reports whether no matcher of l has spiffeID or sni (true for none).
func allEmpty(l *[]api.SpiffeMatch) bool {
	if l == nil {
		return true
	}
	for _, m := range *l {
		if m.SpiffeID != nil || m.SNI != nil {
			return false
		}
	}
	return true
}

// mtpMatcher checks one matcher as Kuma's ValidateMatch does: a spiffeID value must
// be a SPIFFE ID (for Prefix too), an sni is an Exact lower-case DNS name. Types and
// required keys are the CRD's; they are checked here only when it did not answer.
// noCondition says that no matcher of its list has a condition.
func (v *validator) mtpMatcher(m api.SpiffeMatch, mp *field.Path, noCondition bool) {
	if m.SpiffeID == nil && m.SNI == nil {
		msg := "the matcher has neither spiffeID nor sni: Kuma programs no condition for it, so it matches no client; add spiffeID (the client's SPIFFE ID) or sni"
		if noCondition {
			msg = "the matcher has neither spiffeID nor sni, nor has any other of its list: Kuma 2.14 then programs an RBAC matcher with an empty predicate, which Envoy refuses (the proxies keep their previous configuration); add spiffeID (the client's SPIFFE ID) or sni"
		}
		v.warn(field.Invalid(mp, field.OmitValueType{}, msg), CodeMTPEmptyMatcher)
		return
	}
	if sm := m.SpiffeID; sm != nil {
		sp := mp.Child("spiffeID")
		v.matchType(sm.Type, sp.Child("type"), []string{"Exact", "Prefix"})
		if msg := spiffeProblem(sm.Value); msg != "" {
			v.err(field.Invalid(sp, sm.Value, msg), CodeSpiffe)
		} else {
			v.spiffePrefixReach(sm.Type, sm.Value, sp)
		}
	}
	if sni := m.SNI; sni != nil {
		sp := mp.Child("sni")
		v.matchType(sni.Type, sp.Child("type"), []string{"Exact"})
		vp := sp.Child("value")
		switch {
		case sni.Value == "":
			if !v.schemaSaid(vp) {
				v.err(field.Required(vp, "set the server name the client asks for in its TLS hello"), CodeSpiffe)
			}
		default:
			if errs := k8svalidation.IsDNS1123Subdomain(sni.Value); len(errs) > 0 {
				v.err(field.Invalid(vp, sni.Value, "an sni is a lower-case DNS name: "+strings.Join(errs, "; ")), CodeSpiffe)
			}
		}
	}
}

// matchType checks a matcher's type unless the CRD already refused it.
func (v *validator) matchType(t string, p *field.Path, supported []string) {
	if contains(supported, t) || v.schemaSaid(p) {
		return
	}
	if t == "" {
		v.err(field.Required(p, "set type to "+strings.Join(supported, " or ")), CodeSpiffe)
		return
	}
	v.err(field.NotSupported(p, t, supported), CodeSpiffe)
}

// schemaSaid reports whether the CRD layer already refused the value at p, so that
// a rule that repeats a CRD check does not report it twice.
func (v *validator) schemaSaid(p *field.Path) bool {
	at := p.String()
	for _, e := range v.res.Errors {
		if e.Origin == api.CodeWrongType && e.Field == at {
			return true
		}
	}
	return false
}

// mtpUnstored removes what Kuma's CRD does not store, so that the rules and the RBAC
// preview read the policy Kuma reads: a matcher's `spiffeId` (the MADR's spelling),
// `method` and `path`, and a top-level `default`. The schema layer already warned
// about each (MG001); without it, this warns.
func (v *validator) mtpUnstored(s *api.MeshTrafficPermissionSpec, p *field.Path) {
	s.Default = nil // not a section of the kind: structure() dropped and reported it
	known := []string{"sni", "spiffeID"}
	for i := range s.Rules {
		dp := p.Child("rules").Index(i).Child("default")
		for _, l := range mtpLists(s.Rules[i].Default) {
			if l.list == nil {
				continue
			}
			for j := range *l.list {
				m := &(*l.list)[j]
				mp := dp.Child(l.name).Index(j)
				drop := func(key string, set bool) {
					if set && !v.schemaAnswered {
						v.unknown(mp.Child(key), api.UnknownFieldHint(key, known))
					}
				}
				drop("spiffeId", m.SpiffeId != nil)
				drop("method", m.Method != "")
				drop("path", m.Path != nil)
				m.SpiffeId, m.Method, m.Path = nil, "", nil
			}
		}
	}
}

// spiffeProblem checks a SPIFFE ID as Kuma does (go-spiffe's parser): scheme
// spiffe://, a trust domain of lower-case letters, digits, '.', '-' and '_', then
// optional path segments of letters, digits, '.', '-' and '_' that are neither empty
// nor "." or "..", and no trailing '/'. It returns "" when the ID is fine.
func spiffeProblem(id string) string {
	const scheme = "spiffe://"
	if id == "" {
		return "set a SPIFFE ID, e.g. spiffe://trust-domain.mesh/ns/default/sa/frontend"
	}
	if !strings.HasPrefix(id, scheme) {
		return "a SPIFFE ID starts with spiffe:// followed by the trust domain, e.g. spiffe://trust-domain.mesh/ns/default/sa/frontend"
	}
	td, path, hasPath := strings.Cut(id[len(scheme):], "/")
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
	segs := strings.Split(path, "/")
	for i, s := range segs {
		switch {
		case s == "" && i == len(segs)-1:
			return "a SPIFFE ID must not end with '/' (Kuma parses a Prefix value as a whole SPIFFE ID too); remove it"
		case s == "":
			return "SPIFFE ID path segments must not be empty ('//')"
		case s == "." || s == "..":
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
