package compile

import (
	"math/rand/v2"
	"strings"
	"testing"

	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/config/rbac/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	netrbac "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/rbac/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
)

// rbacGen builds random network RBAC configs: mostly what the compiler emits, now
// and then something appendNetRBAC leaves to protojson (other principal kinds,
// regexes, conditions, strings that need escaping, unknown enum values).
type rbacGen struct{ r *rand.Rand }

func (g rbacGen) str() string {
	plain := []string{"", "spiffe://default/web_ns_svc_80", "kuma://version/v1", "MeshTrafficPermission", "a b", "x-1.2_3/~"}
	odd := []string{`q"uote`, `back\slash`, "<html>", "a&b", "é", "\u2028", "tab\t", "\x7f", "\xff"}
	if g.r.IntN(40) == 0 {
		return odd[g.r.IntN(len(odd))]
	}
	return plain[g.r.IntN(len(plain))]
}

func (g rbacGen) matcher() *matcherv3.StringMatcher {
	m := &matcherv3.StringMatcher{IgnoreCase: g.r.IntN(4) == 0}
	switch g.r.IntN(7) {
	case 0:
		m.MatchPattern = &matcherv3.StringMatcher_Exact{Exact: g.str()}
	case 1:
		m.MatchPattern = &matcherv3.StringMatcher_Prefix{Prefix: g.str()}
	case 2:
		m.MatchPattern = &matcherv3.StringMatcher_Suffix{Suffix: g.str()}
	case 3:
		m.MatchPattern = &matcherv3.StringMatcher_Contains{Contains: g.str()}
	case 4:
		if g.r.IntN(3) == 0 {
			m.MatchPattern = &matcherv3.StringMatcher_SafeRegex{SafeRegex: &matcherv3.RegexMatcher{Regex: ".*"}}
		}
	default:
		m.MatchPattern = &matcherv3.StringMatcher_Exact{Exact: g.str()}
	}
	return m
}

func (g rbacGen) principal(depth int) *rbacv3.Principal {
	set := func() *rbacv3.Principal_Set {
		s := &rbacv3.Principal_Set{}
		for range g.r.IntN(4) {
			s.Ids = append(s.Ids, g.principal(depth+1))
		}
		return s
	}
	n := 4
	if depth < 3 {
		n = 8
	}
	switch g.r.IntN(n + 1) {
	case 0:
		return &rbacv3.Principal{Identifier: &rbacv3.Principal_Any{Any: g.r.IntN(5) > 0}}
	case 1, 2:
		a := &rbacv3.Principal_Authenticated{}
		if g.r.IntN(8) > 0 {
			a.PrincipalName = g.matcher()
		}
		return &rbacv3.Principal{Identifier: &rbacv3.Principal_Authenticated_{Authenticated: a}}
	case 3:
		if g.r.IntN(4) == 0 {
			return &rbacv3.Principal{Identifier: &rbacv3.Principal_Header{Header: &routev3.HeaderMatcher{Name: "x"}}}
		}
		return &rbacv3.Principal{}
	case 4:
		return &rbacv3.Principal{Identifier: &rbacv3.Principal_Authenticated_{Authenticated: &rbacv3.Principal_Authenticated{PrincipalName: g.matcher()}}}
	case 5:
		return &rbacv3.Principal{Identifier: &rbacv3.Principal_AndIds{AndIds: set()}}
	case 6:
		return &rbacv3.Principal{Identifier: &rbacv3.Principal_OrIds{OrIds: set()}}
	default:
		return &rbacv3.Principal{Identifier: &rbacv3.Principal_NotId{NotId: g.principal(depth + 1)}}
	}
}

func (g rbacGen) permission(depth int) *rbacv3.Permission {
	set := func() *rbacv3.Permission_Set {
		s := &rbacv3.Permission_Set{}
		for range g.r.IntN(3) {
			s.Rules = append(s.Rules, g.permission(depth+1))
		}
		return s
	}
	n := 1
	if depth < 2 {
		n = 6
	}
	switch g.r.IntN(n + 1) {
	case 0, 1:
		return &rbacv3.Permission{Rule: &rbacv3.Permission_Any{Any: g.r.IntN(5) > 0}}
	case 2:
		return &rbacv3.Permission{Rule: &rbacv3.Permission_AndRules{AndRules: set()}}
	case 3:
		return &rbacv3.Permission{Rule: &rbacv3.Permission_OrRules{OrRules: set()}}
	case 4:
		return &rbacv3.Permission{Rule: &rbacv3.Permission_NotRule{NotRule: g.permission(depth + 1)}}
	case 5:
		if g.r.IntN(3) == 0 {
			return &rbacv3.Permission{Rule: &rbacv3.Permission_DestinationPort{DestinationPort: 80}}
		}
		return &rbacv3.Permission{}
	default:
		return &rbacv3.Permission{Rule: &rbacv3.Permission_Any{Any: true}}
	}
}

func (g rbacGen) rules() *rbacv3.RBAC {
	r := &rbacv3.RBAC{}
	switch g.r.IntN(12) {
	case 0:
		r.Action = rbacv3.RBAC_DENY
	case 1:
		r.Action = rbacv3.RBAC_LOG
	case 2:
		r.Action = rbacv3.RBAC_Action(7)
	}
	if g.r.IntN(30) == 0 {
		r.AuditLoggingOptions = &rbacv3.RBAC_AuditLoggingOptions{}
	}
	if g.r.IntN(6) > 0 {
		r.Policies = map[string]*rbacv3.Policy{}
		for range 1 + g.r.IntN(3) {
			p := &rbacv3.Policy{}
			for range g.r.IntN(3) {
				p.Permissions = append(p.Permissions, g.permission(0))
			}
			for range g.r.IntN(5) {
				p.Principals = append(p.Principals, g.principal(0))
			}
			r.Policies[g.str()+"p"] = p
		}
	}
	return r
}

func (g rbacGen) config() *netrbac.RBAC {
	m := &netrbac.RBAC{}
	if g.r.IntN(8) > 0 {
		m.Rules = g.rules()
	}
	if g.r.IntN(2) == 0 {
		m.ShadowRules = g.rules()
	}
	if g.r.IntN(2) == 0 {
		m.StatPrefix = g.str()
	}
	if g.r.IntN(4) == 0 {
		m.ShadowRulesStatPrefix = g.str()
	}
	switch g.r.IntN(40) {
	case 0:
		m.EnforcementType = netrbac.RBAC_CONTINUOUS
	case 1:
		m.DelayDeny = durationpb.New(0)
	}
	return m
}

// TestAppendNetRBACMatchesProtojson: wherever appendNetRBAC writes a config, it
// writes protojson's bytes after appendCompactHTML (what MarshalJSONCompact wrote
// before it existed); where it declines, it writes nothing.
func TestAppendNetRBACMatchesProtojson(t *testing.T) {
	g := rbacGen{rand.New(rand.NewPCG(1, 2))}
	written, declined := 0, 0
	for i := range 20000 {
		m := g.config()
		ref, err := protojson.Marshal(m)
		if err != nil {
			if _, ok := appendNetRBAC(nil, m); ok {
				t.Fatalf("case %d: protojson fails (%v) but appendNetRBAC wrote %v", i, err, m)
			}
			declined++
			continue
		}
		want := string(appendCompactHTML(nil, ref))
		got, ok := appendNetRBAC([]byte("prefix"), m)
		if !ok {
			if string(got) != "prefix" {
				t.Fatalf("case %d: declined but wrote %q", i, got)
			}
			declined++
			continue
		}
		written++
		if string(got[len("prefix"):]) != want {
			t.Fatalf("case %d:\n got %s\nwant %s", i, got[len("prefix"):], want)
		}
	}
	if written < 8000 || declined < 1000 {
		t.Fatalf("%d written, %d declined: the generator no longer exercises both paths", written, declined)
	}
}

// TestAppendNetRBACKnowsEveryField lists every field of the messages appendNetRBAC
// writes or declines. A go-control-plane upgrade that adds one fails here, since
// the writer would silently leave the new field out where protojson writes it.
func TestAppendNetRBACKnowsEveryField(t *testing.T) {
	for _, tc := range []struct {
		msg    proto.Message
		fields string
	}{
		{&netrbac.RBAC{}, "rules matcher shadowRules shadowMatcher shadowRulesStatPrefix statPrefix enforcementType delayDeny"},
		{&rbacv3.RBAC{}, "action policies auditLoggingOptions"},
		{&rbacv3.Policy{}, "permissions principals condition checkedCondition celConfig"},
		{&rbacv3.Permission{}, "andRules orRules any header urlPath destinationIp destinationPort destinationPortRange metadata notRule requestedServerName matcher uriTemplate sourcedMetadata"},
		{&rbacv3.Permission_Set{}, "rules"},
		{&rbacv3.Principal{}, "andIds orIds any authenticated sourceIp directRemoteIp remoteIp header urlPath metadata filterState notId sourcedMetadata custom"},
		{&rbacv3.Principal_Set{}, "ids"},
		{&rbacv3.Principal_Authenticated{}, "principalName"},
		{&matcherv3.StringMatcher{}, "exact prefix suffix safeRegex contains custom ignoreCase"},
	} {
		d := tc.msg.ProtoReflect().Descriptor()
		var got []string
		for i := range d.Fields().Len() {
			got = append(got, d.Fields().Get(i).JSONName())
		}
		if strings.Join(got, " ") != tc.fields {
			t.Errorf("%s has fields %q; appendNetRBAC was written for %q", d.FullName(), strings.Join(got, " "), tc.fields)
		}
	}
}
