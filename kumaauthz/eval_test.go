package kumaauthz

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	xdscore "github.com/cncf/xds/go/xds/core/v3"
	xdsmatcher "github.com/cncf/xds/go/xds/type/matcher/v3"
	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/config/rbac/v3"
	netinputs "github.com/envoyproxy/go-control-plane/envoy/extensions/matching/common_inputs/network/v3"
	sslinputs "github.com/envoyproxy/go-control-plane/envoy/extensions/matching/common_inputs/ssl/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"

	"github.com/meshguard/meshguard/api"
)

// This file holds the test-only evaluators: one that reads the merged `from` list
// the way the MeshTrafficPermission MADR defines it (last matching item decides), and independent
// evaluators of the emitted Envoy principals and matcher trees. The product never
// evaluates anything; these exist to check it.

// client is a calling proxy: its mesh and its tags (kuma.io/service included).
type client struct {
	mesh string
	tags map[string]string
}

// sans are the URI SANs Kuma puts in the client's certificate (Kuma's MeshTrafficPermission MADR).
func (c client) sans() []string {
	var out []string
	keys := make([]string, 0, len(c.tags))
	for k := range c.tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == api.ServiceTag {
			out = append(out, "spiffe://"+c.mesh+"/"+c.tags[k])
			continue
		}
		out = append(out, "kuma://"+k+"/"+c.tags[k])
	}
	return out
}

func (c client) String() string { return fmt.Sprintf("%s%v", c.mesh, c.tags) }

// verdict is what the list (or a config) decides for a client.
type verdict struct{ allow, shadowAllow bool }

// itemMatches is the MeshTrafficPermission MADR's targetRef matching, written from the tags, not from the
// compiler's atoms: kuma.io/service is a SPIFFE ID and so carries the mesh; other
// tags are kuma:// URIs and do not; a cross-mesh item only matches its mesh.
func itemMatches(f api.MTPFrom, c client, localMesh string) bool {
	ref := f.TargetRef
	mesh := ref.Mesh
	cross := mesh != "" && mesh != localMesh
	if mesh == "" {
		mesh = localMesh
	}
	tags := ref.TagView()
	if _, svc := tags[api.ServiceTag]; cross && !svc && c.mesh != mesh {
		return false
	}
	for k, v := range tags {
		if k == api.ServiceTag {
			if c.mesh != mesh || c.tags[k] != v {
				return false
			}
			continue
		}
		if got, ok := c.tags[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// evalList: the last matching item decides; no match denies.
func evalList(t *testing.T, items []MergedItem, c client, localMesh string) verdict {
	t.Helper()
	for i := len(items) - 1; i >= 0; i-- {
		if itemMatches(items[i].From, c, localMesh) {
			a, err := ParseAction(items[i].From.Default.Action)
			if err != nil {
				t.Fatal(err)
			}
			return verdict{allow: a.Allows(), shadowAllow: a.ShadowAllows()}
		}
	}
	return verdict{}
}

// evalPrincipal walks an Envoy principal against a SAN set.
func evalPrincipal(t *testing.T, p *rbacv3.Principal, sans []string) bool {
	t.Helper()
	switch id := p.GetIdentifier().(type) {
	case *rbacv3.Principal_Any:
		return id.Any
	case *rbacv3.Principal_AndIds:
		for _, q := range id.AndIds.GetIds() {
			if !evalPrincipal(t, q, sans) {
				return false
			}
		}
		return true
	case *rbacv3.Principal_OrIds:
		for _, q := range id.OrIds.GetIds() {
			if evalPrincipal(t, q, sans) {
				return true
			}
		}
		return false
	case *rbacv3.Principal_NotId:
		return !evalPrincipal(t, id.NotId, sans)
	case *rbacv3.Principal_Authenticated_:
		sm := id.Authenticated.GetPrincipalName()
		for _, s := range sans {
			switch m := sm.GetMatchPattern().(type) {
			case *matcherv3.StringMatcher_Exact:
				if s == m.Exact {
					return true
				}
			case *matcherv3.StringMatcher_Prefix:
				if strings.HasPrefix(s, m.Prefix) {
					return true
				}
			default:
				t.Fatalf("unexpected string matcher %T", m)
			}
		}
		return false
	}
	t.Fatalf("unexpected principal %T", p.GetIdentifier())
	return false
}

// evalRBAC: an ALLOW RBAC admits a client matched by some principal of some policy.
func evalRBAC(t *testing.T, r *rbacv3.RBAC, sans []string) bool {
	t.Helper()
	if r == nil {
		return true
	}
	if r.GetAction() != rbacv3.RBAC_ALLOW {
		t.Fatalf("unexpected RBAC action %v", r.GetAction())
	}
	for _, pol := range r.GetPolicies() {
		if len(pol.GetPermissions()) != 1 || !pol.GetPermissions()[0].GetAny() {
			t.Fatalf("unexpected permissions %v", pol.GetPermissions())
		}
		for _, p := range pol.GetPrincipals() {
			if evalPrincipal(t, p, sans) {
				return true
			}
		}
	}
	return false
}

// request is what a matcher tree sees: the peer's URI SANs, the server name of its
// TLS hello (sni) and HTTP headers.
type request struct {
	sans    []string
	sni     string
	headers map[string]string
}

// evalMatcher walks an xDS matcher tree; it returns the action and its name.
func evalMatcher(t *testing.T, m *xdsmatcher.Matcher, r request) (rbacv3.RBAC_Action, string) {
	t.Helper()
	for _, fm := range m.GetMatcherList().GetMatchers() {
		if evalPredicate(t, fm.GetPredicate(), r) {
			return onMatchAction(t, fm.GetOnMatch())
		}
	}
	if m.GetOnNoMatch() == nil {
		t.Fatal("matcher without on_no_match")
	}
	return onMatchAction(t, m.GetOnNoMatch())
}

func onMatchAction(t *testing.T, om *xdsmatcher.Matcher_OnMatch) (rbacv3.RBAC_Action, string) {
	t.Helper()
	var a rbacv3.Action
	if err := om.GetAction().GetTypedConfig().UnmarshalTo(&a); err != nil {
		t.Fatalf("on_match action: %v", err)
	}
	return a.GetAction(), a.GetName()
}

func evalPredicate(t *testing.T, p *xdsmatcher.Matcher_MatcherList_Predicate, r request) bool {
	t.Helper()
	switch mt := p.GetMatchType().(type) {
	case *xdsmatcher.Matcher_MatcherList_Predicate_SinglePredicate_:
		in := inputValue(t, mt.SinglePredicate.GetInput(), r)
		return evalXdsString(t, mt.SinglePredicate.GetValueMatch(), in)
	case *xdsmatcher.Matcher_MatcherList_Predicate_OrMatcher:
		for _, q := range mt.OrMatcher.GetPredicate() {
			if evalPredicate(t, q, r) {
				return true
			}
		}
		return false
	case *xdsmatcher.Matcher_MatcherList_Predicate_AndMatcher:
		for _, q := range mt.AndMatcher.GetPredicate() {
			if !evalPredicate(t, q, r) {
				return false
			}
		}
		return true
	case *xdsmatcher.Matcher_MatcherList_Predicate_NotMatcher:
		return !evalPredicate(t, mt.NotMatcher, r)
	}
	t.Fatalf("unexpected predicate %T", p.GetMatchType())
	return false
}

// inputValue is what Envoy's input returns; uri_san joins all URI SANs with commas.
func inputValue(t *testing.T, in *xdscore.TypedExtensionConfig, r request) string {
	t.Helper()
	m, err := in.GetTypedConfig().UnmarshalNew()
	if err != nil {
		t.Fatalf("input: %v", err)
	}
	switch x := m.(type) {
	case *sslinputs.UriSanInput:
		return strings.Join(r.sans, ",")
	case *netinputs.ServerNameInput:
		return r.sni
	case *matcherv3.HttpRequestHeaderMatchInput:
		return r.headers[x.GetHeaderName()]
	}
	t.Fatalf("unexpected input %T", m)
	return ""
}

func evalXdsString(t *testing.T, sm *xdsmatcher.StringMatcher, s string) bool {
	t.Helper()
	switch m := sm.GetMatchPattern().(type) {
	case *xdsmatcher.StringMatcher_Exact:
		return s == m.Exact
	case *xdsmatcher.StringMatcher_Prefix:
		return strings.HasPrefix(s, m.Prefix)
	case *xdsmatcher.StringMatcher_SafeRegex:
		return regexp.MustCompile("^(?:" + m.SafeRegex.GetRegex() + ")$").MatchString(s)
	}
	t.Fatalf("unexpected xds string matcher %T", sm.GetMatchPattern())
	return false
}

// principalString renders a principal canonically (children sorted), so that
// "equal up to order" is string equality.
func principalString(p *rbacv3.Principal) string {
	switch id := p.GetIdentifier().(type) {
	case *rbacv3.Principal_Any:
		return "any"
	case *rbacv3.Principal_AndIds:
		return "and(" + childStrings(id.AndIds.GetIds()) + ")"
	case *rbacv3.Principal_OrIds:
		return "or(" + childStrings(id.OrIds.GetIds()) + ")"
	case *rbacv3.Principal_NotId:
		return "!" + principalString(id.NotId)
	case *rbacv3.Principal_Authenticated_:
		sm := id.Authenticated.GetPrincipalName()
		if px := sm.GetPrefix(); px != "" {
			return px + "*"
		}
		return sm.GetExact()
	}
	return fmt.Sprintf("%T", p.GetIdentifier())
}

func childStrings(ps []*rbacv3.Principal) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = principalString(p)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// policyPrincipals renders the principals of the one policy of an RBAC, sorted.
func policyPrincipals(r *rbacv3.RBAC, name string) []string {
	var out []string
	for _, p := range r.GetPolicies()[name].GetPrincipals() {
		out = append(out, principalString(p))
	}
	sort.Strings(out)
	return out
}
