package kumaauthz

import (
	"fmt"
	"strings"

	xdscore "github.com/cncf/xds/go/xds/core/v3"
	xdsmatcher "github.com/cncf/xds/go/xds/type/matcher/v3"
	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/config/rbac/v3"
	httprbac "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/rbac/v3"
	netrbac "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/rbac/v3"
	netinputs "github.com/envoyproxy/go-control-plane/envoy/extensions/matching/common_inputs/network/v3"
	sslinputs "github.com/envoyproxy/go-control-plane/envoy/extensions/matching/common_inputs/ssl/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/meshguard/meshguard/api"
)

// Names used in the matcher tree. DefaultActionName is the SPIFFE-matches MADR's no-match action.
const (
	DefaultActionName = "default"
	uriSanInputName   = "envoy.matching.inputs.uri_san"
	sniInputName      = "envoy.matching.inputs.server_name"
	headerInputName   = "envoy.matching.inputs.request_headers"
	actionName        = "envoy.filters.rbac.action"
)

// The three lists of the SPIFFE-matches MADR, in the order their matchers are emitted.
const (
	ListDeny                = "deny"
	ListAllowWithShadowDeny = "allowWithShadowDeny"
	ListAllow               = "allow"
)

// SpiffeEntry is one SPIFFE matcher of the merged group with where it came from.
type SpiffeEntry struct {
	Policy string          `json:"policy"`
	Path   string          `json:"path"`
	List   string          `json:"list"`
	Match  api.SpiffeMatch `json:"match"`
}

// http reports whether the entry has conditions only an HTTP filter can see.
func (e SpiffeEntry) http() bool { return e.Match.Method != "" || e.Match.Path != nil }

// empty reports whether the entry has no condition at all. Kuma programs nothing for
// such a matcher (it skips it when it builds the predicate), so it matches no client.
func (e SpiffeEntry) empty() bool {
	sm, _ := e.Match.Spiffe()
	return sm == nil && e.Match.SNI == nil && !e.http()
}

// SpiffeEntries lists a policy's matchers: spec.default first, then each
// spec.rules[i].default, each as deny, allowWithShadowDeny, allow.
func SpiffeEntries(p Policy) []SpiffeEntry {
	var out []SpiffeEntry
	add := func(base string, m *api.MTPMatches) {
		for _, l := range []struct {
			name string
			list *[]api.SpiffeMatch
		}{{ListDeny, m.Deny}, {ListAllowWithShadowDeny, m.AllowWithShadowDeny}, {ListAllow, m.Allow}} {
			if l.list == nil {
				continue
			}
			for i, sm := range *l.list {
				out = append(out, SpiffeEntry{Policy: p.Ref(), Path: fmt.Sprintf("%s.%s[%d]", base, l.name, i), List: l.name, Match: sm})
			}
		}
	}
	if p.Spec.Default != nil {
		add("spec.default", p.Spec.Default)
	}
	for i := range p.Spec.Rules {
		add(fmt.Sprintf("spec.rules[%d].default", i), &p.Spec.Rules[i].Default)
	}
	return out
}

// MatcherResult is a compiled group of SPIFFE-matcher policies.
type MatcherResult struct {
	// Config is the network RBAC filter with matcher and shadow_matcher.
	Config *netrbac.RBAC
	// HTTP is set when some matcher has method/path conditions: the network filter
	// cannot see HTTP, so those conditions are enforced by this HTTP RBAC filter
	// and the network filter keeps a sound over-approximation (docs/rbac.md).
	HTTP     *httprbac.RBAC
	Warnings []string
}

// CompileMatchers builds the SPIFFE-matches MADR's matcher trees for entries of policies given in
// merge order. Enforced: every deny first, then allow and allowWithShadowDeny, no
// match denies ("default"). Shadow: deny and allowWithShadowDeny deny, allow
// allows. Action names are the policy's ns/name.
func CompileMatchers(entries []SpiffeEntry, statPrefix string) (MatcherResult, error) {
	if statPrefix == "" {
		statPrefix = DefaultStatPrefix
	}
	var res MatcherResult
	needHTTP := false
	for _, e := range entries {
		needHTTP = needHTTP || e.http()
	}
	l4 := func(e SpiffeEntry, denying bool) (*xdsmatcher.Matcher_MatcherList_Predicate, bool, error) {
		if e.empty() || e.http() && denying {
			// Kuma programs nothing for an empty matcher; and method/path cannot deny
			// at L4, the HTTP filter does.
			return nil, false, nil
		}
		p, err := predicate(e, false)
		return p, true, err
	}
	l7 := func(e SpiffeEntry, _ bool) (*xdsmatcher.Matcher_MatcherList_Predicate, bool, error) {
		if e.empty() {
			return nil, false, nil
		}
		p, err := predicate(e, true)
		return p, true, err
	}
	enf, err := tree(entries, false, l4)
	if err != nil {
		return res, err
	}
	sh, err := tree(entries, true, l4)
	if err != nil {
		return res, err
	}
	res.Config = &netrbac.RBAC{StatPrefix: statPrefix, Matcher: enf, ShadowMatcher: sh}
	if err := res.Config.ValidateAll(); err != nil {
		return res, fmt.Errorf("internal error: generated RBAC matcher is invalid: %v", err)
	}
	if needHTTP {
		enf, err := tree(entries, false, l7)
		if err != nil {
			return res, err
		}
		sh, err := tree(entries, true, l7)
		if err != nil {
			return res, err
		}
		res.HTTP = &httprbac.RBAC{Matcher: enf, ShadowMatcher: sh}
		if err := res.HTTP.ValidateAll(); err != nil {
			return res, fmt.Errorf("internal error: generated HTTP RBAC matcher is invalid: %v", err)
		}
		res.Warnings = append(res.Warnings, "method/path conditions cannot be seen by the network RBAC filter: "+
			"it admits their SPIFFE IDs and the HTTP RBAC filter (httpRbac) enforces them; on a TCP inbound they cannot be enforced")
	}
	return res, nil
}

// tree emits one field matcher per policy and verdict, so every action names its
// policy: first all denying lists (deny; in shadow also allowWithShadowDeny) in
// policy order, then all allowing ones.
func tree(entries []SpiffeEntry, shadow bool, pred func(SpiffeEntry, bool) (*xdsmatcher.Matcher_MatcherList_Predicate, bool, error)) (*xdsmatcher.Matcher, error) {
	denies := func(list string) bool {
		return list == ListDeny || (shadow && list == ListAllowWithShadowDeny)
	}
	var fms []*xdsmatcher.Matcher_MatcherList_FieldMatcher
	for _, denying := range []bool{true, false} {
		var order []string
		byPolicy := map[string][]*xdsmatcher.Matcher_MatcherList_Predicate{}
		for _, e := range entries {
			if denies(e.List) != denying {
				continue
			}
			p, keep, err := pred(e, denying)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %v", e.Policy, e.Path, err)
			}
			if !keep {
				continue
			}
			if _, ok := byPolicy[e.Policy]; !ok {
				order = append(order, e.Policy)
			}
			byPolicy[e.Policy] = append(byPolicy[e.Policy], p)
		}
		act := rbacv3.RBAC_ALLOW
		if denying {
			act = rbacv3.RBAC_DENY
		}
		for _, pol := range order {
			fms = append(fms, &xdsmatcher.Matcher_MatcherList_FieldMatcher{
				Predicate: orPred(byPolicy[pol]),
				OnMatch:   onAction(pol, act),
			})
		}
	}
	m := &xdsmatcher.Matcher{OnNoMatch: onAction(DefaultActionName, rbacv3.RBAC_DENY)}
	if len(fms) > 0 {
		m.MatcherType = &xdsmatcher.Matcher_MatcherList_{MatcherList: &xdsmatcher.Matcher_MatcherList{Matchers: fms}}
	}
	return m, nil
}

// predicate is the entry's condition, as Kuma 2.14 builds it: its SPIFFE ID on the
// URI SAN input and its sni on the server name input (the SNI of the client's TLS
// hello), both required when both are set; with withHTTP, also the MADR's method
// (:method) and path (:path) headers. An entry whose only conditions are HTTP ones
// matches every client at L4 (the HTTP filter enforces them); an entry with no
// condition at all is not called (Kuma skips it).
func predicate(e SpiffeEntry, withHTTP bool) (*xdsmatcher.Matcher_MatcherList_Predicate, error) {
	var ps []*xdsmatcher.Matcher_MatcherList_Predicate
	if sm, _ := e.Match.Spiffe(); sm != nil {
		vm, err := stringMatch(sm)
		if err != nil {
			return nil, fmt.Errorf("spiffeID: %v", err)
		}
		ps = append(ps, single(input(uriSanInputName, &sslinputs.UriSanInput{}), vm))
	}
	if sni := e.Match.SNI; sni != nil {
		if sni.Type != "Exact" && sni.Type != "" {
			return nil, fmt.Errorf("sni: unsupported match type %q (want Exact)", sni.Type)
		}
		vm := &xdsmatcher.StringMatcher{MatchPattern: &xdsmatcher.StringMatcher_Exact{Exact: sni.Value}}
		ps = append(ps, single(input(sniInputName, &netinputs.ServerNameInput{}), vm))
	}
	if withHTTP && e.Match.Method != "" {
		vm := &xdsmatcher.StringMatcher{MatchPattern: &xdsmatcher.StringMatcher_Exact{Exact: e.Match.Method}}
		ps = append(ps, single(input(headerInputName, &matcherv3.HttpRequestHeaderMatchInput{HeaderName: ":method"}), vm))
	}
	if withHTTP && e.Match.Path != nil {
		vm, err := stringMatch(e.Match.Path)
		if err != nil {
			return nil, fmt.Errorf("path: %v", err)
		}
		ps = append(ps, single(input(headerInputName, &matcherv3.HttpRequestHeaderMatchInput{HeaderName: ":path"}), vm))
	}
	if len(ps) == 0 {
		anything := &xdsmatcher.StringMatcher{MatchPattern: &xdsmatcher.StringMatcher_SafeRegex{SafeRegex: &xdsmatcher.RegexMatcher{
			EngineType: &xdsmatcher.RegexMatcher_GoogleRe2{GoogleRe2: &xdsmatcher.RegexMatcher_GoogleRE2{}}, Regex: ".*"}}}
		return single(input(uriSanInputName, &sslinputs.UriSanInput{}), anything), nil
	}
	if len(ps) == 1 {
		return ps[0], nil
	}
	return &xdsmatcher.Matcher_MatcherList_Predicate{MatchType: &xdsmatcher.Matcher_MatcherList_Predicate_AndMatcher{
		AndMatcher: &xdsmatcher.Matcher_MatcherList_Predicate_PredicateList{Predicate: ps}}}, nil
}

func stringMatch(sm *api.StringMatch) (*xdsmatcher.StringMatcher, error) {
	switch sm.Type {
	case "Exact", "":
		return &xdsmatcher.StringMatcher{MatchPattern: &xdsmatcher.StringMatcher_Exact{Exact: sm.Value}}, nil
	case "Prefix":
		if sm.Value == "" {
			return nil, fmt.Errorf("Prefix needs a value")
		}
		return &xdsmatcher.StringMatcher{MatchPattern: &xdsmatcher.StringMatcher_Prefix{Prefix: sm.Value}}, nil
	}
	return nil, fmt.Errorf("unsupported match type %q (want Exact or Prefix)", sm.Type)
}

func single(in *xdscore.TypedExtensionConfig, vm *xdsmatcher.StringMatcher) *xdsmatcher.Matcher_MatcherList_Predicate {
	return &xdsmatcher.Matcher_MatcherList_Predicate{MatchType: &xdsmatcher.Matcher_MatcherList_Predicate_SinglePredicate_{
		SinglePredicate: &xdsmatcher.Matcher_MatcherList_Predicate_SinglePredicate{
			Input:   in,
			Matcher: &xdsmatcher.Matcher_MatcherList_Predicate_SinglePredicate_ValueMatch{ValueMatch: vm},
		}}}
}

func orPred(ps []*xdsmatcher.Matcher_MatcherList_Predicate) *xdsmatcher.Matcher_MatcherList_Predicate {
	if len(ps) == 1 {
		return ps[0]
	}
	return &xdsmatcher.Matcher_MatcherList_Predicate{MatchType: &xdsmatcher.Matcher_MatcherList_Predicate_OrMatcher{
		OrMatcher: &xdsmatcher.Matcher_MatcherList_Predicate_PredicateList{Predicate: ps}}}
}

func input(name string, m proto.Message) *xdscore.TypedExtensionConfig {
	return &xdscore.TypedExtensionConfig{Name: name, TypedConfig: mustAny(m)}
}

// onAction names the action after the policy. Proto strings must be valid UTF-8 (a
// packed Action with anything else does not marshal), so a name that is not, which
// no API server or JSON decoder hands out but a Go caller could, is sanitized.
func onAction(name string, a rbacv3.RBAC_Action) *xdsmatcher.Matcher_OnMatch {
	name = strings.ToValidUTF8(name, "\uFFFD")
	return &xdsmatcher.Matcher_OnMatch{OnMatch: &xdsmatcher.Matcher_OnMatch_Action{
		Action: &xdscore.TypedExtensionConfig{Name: actionName, TypedConfig: mustAny(&rbacv3.Action{Name: name, Action: a})}}}
}

// mustAny packs a message we just built; anypb.New only fails on a nil or
// unregistered message, which would be a programming error here.
func mustAny(m proto.Message) *anypb.Any {
	a, err := anypb.New(m)
	if err != nil {
		panic(err)
	}
	return a
}
