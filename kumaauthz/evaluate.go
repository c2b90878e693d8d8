package kumaauthz

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	xdscore "github.com/cncf/xds/go/xds/core/v3"
	xdsmatcher "github.com/cncf/xds/go/xds/type/matcher/v3"
	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/config/rbac/v3"
	netinputs "github.com/envoyproxy/go-control-plane/envoy/extensions/matching/common_inputs/network/v3"
	sslinputs "github.com/envoyproxy/go-control-plane/envoy/extensions/matching/common_inputs/ssl/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
)

// This file evaluates the Envoy RBAC messages compilation emits, the way Envoy's
// RBAC filters do, so that `meshguard check` answers with the very config a preview
// shows instead of re-reading the policies. It covers what compilation emits
// (principals built from any / and_ids / or_ids / not_id / authenticated, permission
// any, matcher lists on the uri_san, server_name and request-header inputs) and the
// string matchers Envoy has; anything else is an error, never a guess.

// Request is what an Envoy RBAC filter sees of one call: the URI SANs of the peer
// certificate, the server name (SNI) of its TLS hello, and, for the HTTP filter, the
// request's :method and :path. HTTP is false on the network filter, which cannot
// read headers.
type Request struct {
	SANs   []string
	SNI    string
	Method string
	Path   string
	HTTP   bool
}

// EvalPrincipal reports whether a principal matches the peer whose certificate
// carries sans. `authenticated` with a principal_name matches when one URI SAN
// matches the string matcher (Envoy also tries DNS SANs and the subject, which Kuma
// certificates do not use for identity).
func EvalPrincipal(p *rbacv3.Principal, sans []string) (bool, error) {
	switch id := p.GetIdentifier().(type) {
	case *rbacv3.Principal_Any:
		return id.Any, nil
	case *rbacv3.Principal_AndIds:
		for _, q := range id.AndIds.GetIds() {
			ok, err := EvalPrincipal(q, sans)
			if err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	case *rbacv3.Principal_OrIds:
		for _, q := range id.OrIds.GetIds() {
			ok, err := EvalPrincipal(q, sans)
			if err != nil || ok {
				return ok, err
			}
		}
		return false, nil
	case *rbacv3.Principal_NotId:
		ok, err := EvalPrincipal(id.NotId, sans)
		return !ok && err == nil, err
	case *rbacv3.Principal_Authenticated_:
		sm := id.Authenticated.GetPrincipalName()
		if sm == nil {
			return len(sans) > 0, nil // any authenticated peer
		}
		for _, s := range sans {
			ok, err := evalStringMatcher(sm, s)
			if err != nil || ok {
				return ok, err
			}
		}
		return false, nil
	}
	return false, fmt.Errorf("principal %T is not supported by the evaluator", p.GetIdentifier())
}

// evalStringMatcher is envoy.type.matcher.v3.StringMatcher on s.
func evalStringMatcher(sm *matcherv3.StringMatcher, s string) (bool, error) {
	if sm.GetIgnoreCase() {
		s = strings.ToLower(s)
	}
	lower := func(v string) string {
		if sm.GetIgnoreCase() {
			return strings.ToLower(v)
		}
		return v
	}
	switch m := sm.GetMatchPattern().(type) {
	case *matcherv3.StringMatcher_Exact:
		return s == lower(m.Exact), nil
	case *matcherv3.StringMatcher_Prefix:
		return strings.HasPrefix(s, lower(m.Prefix)), nil
	case *matcherv3.StringMatcher_Suffix:
		return strings.HasSuffix(s, lower(m.Suffix)), nil
	case *matcherv3.StringMatcher_Contains:
		return strings.Contains(s, lower(m.Contains)), nil
	case *matcherv3.StringMatcher_SafeRegex:
		return fullMatch(m.SafeRegex.GetRegex(), s)
	}
	return false, fmt.Errorf("string matcher %T is not supported by the evaluator", sm.GetMatchPattern())
}

// fullMatch is a RE2 full match, as Envoy's safe_regex matches the whole value.
func fullMatch(re, s string) (bool, error) {
	r, err := regexp.Compile("^(?:" + re + ")$")
	if err != nil {
		return false, fmt.Errorf("regex %q: %v", re, err)
	}
	return r.MatchString(s), nil
}

// EvalRBAC is the decision of an rbacv3.RBAC on a peer: an ALLOW RBAC admits a
// peer some policy matches, a DENY RBAC admits a peer no policy matches; nil (no
// rules configured) admits everyone. policy names the matching policy ("" when
// none matched). A policy matches when one of its permissions and one of its
// principals do; compilation only emits the permission `any`.
func EvalRBAC(r *rbacv3.RBAC, sans []string) (allowed bool, policy string, err error) {
	if r == nil {
		return true, "", nil
	}
	matched := ""
	for _, name := range sortedKeys(r.GetPolicies()) {
		pol := r.GetPolicies()[name]
		perm := false
		for _, p := range pol.GetPermissions() {
			if _, ok := p.GetRule().(*rbacv3.Permission_Any); !ok {
				return false, "", fmt.Errorf("policy %s: permission %T is not supported by the evaluator", name, p.GetRule())
			}
			perm = perm || p.GetAny()
		}
		if !perm {
			continue
		}
		for _, p := range pol.GetPrincipals() {
			ok, err := EvalPrincipal(p, sans)
			if err != nil {
				return false, "", fmt.Errorf("policy %s: %v", name, err)
			}
			if ok {
				matched = name
				break
			}
		}
		if matched != "" {
			break
		}
	}
	switch r.GetAction() {
	case rbacv3.RBAC_ALLOW:
		return matched != "", matched, nil
	case rbacv3.RBAC_DENY:
		return matched == "", matched, nil
	}
	return false, "", fmt.Errorf("RBAC action %v is not supported by the evaluator", r.GetAction())
}

// sortedKeys are a policy map's names in order, so that the policy named as the
// match does not depend on map order (Envoy's own order is unspecified too).
func sortedKeys(m map[string]*rbacv3.Policy) []string {
	return slices.Sorted(maps.Keys(m))
}

// EvalMatcher walks an xDS matcher tree (the RBAC filter's matcher or
// shadow_matcher) for req: the first field matcher whose predicate holds decides,
// else on_no_match; an on_match may hold a nested matcher. It returns the RBAC
// action and its name (the policy's "ns/name" or DefaultActionName). A tree that
// ends without an action (no on_no_match) is an error: Envoy's RBAC then denies.
func EvalMatcher(m *xdsmatcher.Matcher, req Request) (rbacv3.RBAC_Action, string, error) {
	for depth := 0; m != nil && depth < 64; depth++ {
		var next *xdsmatcher.Matcher_OnMatch
		for _, fm := range m.GetMatcherList().GetMatchers() {
			ok, err := EvalPredicate(fm.GetPredicate(), req)
			if err != nil {
				return 0, "", err
			}
			if ok {
				next = fm.GetOnMatch()
				break
			}
		}
		if m.GetMatcherTree() != nil {
			return 0, "", fmt.Errorf("matcher_tree is not supported by the evaluator")
		}
		if next == nil {
			next = m.GetOnNoMatch()
		}
		if next == nil {
			return rbacv3.RBAC_DENY, "", fmt.Errorf("the matcher has no on_no_match for a request no predicate matches")
		}
		if nested := next.GetMatcher(); nested != nil {
			m = nested
			continue
		}
		var a rbacv3.Action
		if err := next.GetAction().GetTypedConfig().UnmarshalTo(&a); err != nil {
			return 0, "", fmt.Errorf("on_match action: %v", err)
		}
		return a.GetAction(), a.GetName(), nil
	}
	return 0, "", fmt.Errorf("matcher nested deeper than 64 levels")
}

// EvalPredicate evaluates one predicate of a matcher list.
func EvalPredicate(p *xdsmatcher.Matcher_MatcherList_Predicate, req Request) (bool, error) {
	switch mt := p.GetMatchType().(type) {
	case *xdsmatcher.Matcher_MatcherList_Predicate_SinglePredicate_:
		in, ok, err := inputOf(mt.SinglePredicate.GetInput(), req)
		if err != nil || !ok {
			return false, err // an input without data matches nothing
		}
		vm := mt.SinglePredicate.GetValueMatch()
		if vm == nil {
			return false, fmt.Errorf("custom_match is not supported by the evaluator")
		}
		return evalXdsStringMatcher(vm, in)
	case *xdsmatcher.Matcher_MatcherList_Predicate_OrMatcher:
		for _, q := range mt.OrMatcher.GetPredicate() {
			ok, err := EvalPredicate(q, req)
			if err != nil || ok {
				return ok, err
			}
		}
		return false, nil
	case *xdsmatcher.Matcher_MatcherList_Predicate_AndMatcher:
		for _, q := range mt.AndMatcher.GetPredicate() {
			ok, err := EvalPredicate(q, req)
			if err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	case *xdsmatcher.Matcher_MatcherList_Predicate_NotMatcher:
		ok, err := EvalPredicate(mt.NotMatcher, req)
		return !ok && err == nil, err
	}
	return false, fmt.Errorf("predicate %T is not supported by the evaluator", p.GetMatchType())
}

// inputOf is the value an input extension yields for req, and whether it has one.
// The uri_san input joins every URI SAN of the peer certificate with commas
// (Envoy's ssl matching input), so an Exact SPIFFE matcher does not match a
// certificate that also carries kuma:// tags; a peer without a SAN has no value.
func inputOf(in *xdscore.TypedExtensionConfig, req Request) (string, bool, error) {
	m, err := in.GetTypedConfig().UnmarshalNew()
	if err != nil {
		return "", false, fmt.Errorf("input %s: %v", in.GetName(), err)
	}
	switch x := m.(type) {
	case *sslinputs.UriSanInput:
		return strings.Join(req.SANs, ","), len(req.SANs) > 0, nil
	case *netinputs.ServerNameInput:
		return req.SNI, req.SNI != "", nil
	case *matcherv3.HttpRequestHeaderMatchInput:
		if !req.HTTP {
			return "", false, fmt.Errorf("input %s (header %s) cannot be read by a network filter", in.GetName(), x.GetHeaderName())
		}
		switch x.GetHeaderName() {
		case ":method":
			return req.Method, req.Method != "", nil
		case ":path":
			return req.Path, req.Path != "", nil
		}
		return "", false, nil
	}
	return "", false, fmt.Errorf("input %T is not supported by the evaluator", m)
}

// evalXdsStringMatcher is xds.type.matcher.v3.StringMatcher on s: the same tests
// as Envoy's own StringMatcher, so it is read as one.
func evalXdsStringMatcher(sm *xdsmatcher.StringMatcher, s string) (bool, error) {
	em := &matcherv3.StringMatcher{IgnoreCase: sm.GetIgnoreCase()}
	switch m := sm.GetMatchPattern().(type) {
	case *xdsmatcher.StringMatcher_Exact:
		em.MatchPattern = &matcherv3.StringMatcher_Exact{Exact: m.Exact}
	case *xdsmatcher.StringMatcher_Prefix:
		em.MatchPattern = &matcherv3.StringMatcher_Prefix{Prefix: m.Prefix}
	case *xdsmatcher.StringMatcher_Suffix:
		em.MatchPattern = &matcherv3.StringMatcher_Suffix{Suffix: m.Suffix}
	case *xdsmatcher.StringMatcher_Contains:
		em.MatchPattern = &matcherv3.StringMatcher_Contains{Contains: m.Contains}
	case *xdsmatcher.StringMatcher_SafeRegex:
		em.MatchPattern = &matcherv3.StringMatcher_SafeRegex{SafeRegex: &matcherv3.RegexMatcher{Regex: m.SafeRegex.GetRegex()}}
	default:
		return false, fmt.Errorf("string matcher %T is not supported by the evaluator", sm.GetMatchPattern())
	}
	return evalStringMatcher(em, s)
}
