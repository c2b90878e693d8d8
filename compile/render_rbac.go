package compile

import (
	"slices"

	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/config/rbac/v3"
	netrbac "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/rbac/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"

	"github.com/meshguard/meshguard/internal/fastjson"
)

// appendNetRBAC writes the network RBAC config that `from` policies compile to
// (rules and shadow_rules of principals and `any` permissions) without protojson,
// which reflected over every message and was most of the cost of rendering a
// preview. It covers the messages and fields the compiler emits and reports false,
// having written nothing, for anything else — a field it does not know, a string
// that would need escaping — so that the caller falls back to protojson.
//
// The bytes are protojson's after appendCompactHTML: fields in declaration order
// (protojson's order.IndexOrder), proto3 defaults omitted except in a oneof, map
// keys sorted, enums by name. TestAppendNetRBACMatchesProtojson compares the two
// on random configs that use every case handled here and some that are not.
func appendNetRBAC(dst []byte, m *netrbac.RBAC) ([]byte, bool) {
	if m.Matcher != nil || m.ShadowMatcher != nil || m.DelayDeny != nil || m.EnforcementType != 0 {
		return dst, false
	}
	w := rbacWriter{b: dst, ok: true}
	w.open()
	if m.Rules != nil {
		w.key("rules")
		w.rbac(m.Rules)
	}
	if m.ShadowRules != nil {
		w.key("shadowRules")
		w.rbac(m.ShadowRules)
	}
	w.optString("shadowRulesStatPrefix", m.ShadowRulesStatPrefix)
	w.optString("statPrefix", m.StatPrefix)
	w.close()
	if !w.ok {
		return dst, false
	}
	return w.b, true
}

// rbacWriter appends one JSON object tree; ok turns false at the first thing it
// cannot write as protojson would.
type rbacWriter struct {
	b     []byte
	ok    bool
	comma bool // a member has been written in the innermost open object or array
}

func (w *rbacWriter) open() { w.b, w.comma = append(w.b, '{'), false }

func (w *rbacWriter) close() { w.b, w.comma = append(w.b, '}'), true }

func (w *rbacWriter) key(k string) {
	if w.comma {
		w.b = append(w.b, ',')
	}
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
	w.comma = false
}

// str writes s when every byte is printable ASCII that needs no escape; other
// strings are protojson's to escape.
func (w *rbacWriter) str(s string) {
	if !htmlSafeString(s) {
		w.ok = false
		return
	}
	w.b = append(w.b, '"')
	w.b = append(w.b, s...)
	w.b = append(w.b, '"')
	w.comma = true
}

func (w *rbacWriter) optString(k, s string) {
	if s != "" {
		w.key(k)
		w.str(s)
	}
}

func (w *rbacWriter) boolean(v bool) {
	if v {
		w.b = append(w.b, "true"...)
	} else {
		w.b = append(w.b, "false"...)
	}
	w.comma = true
}

func (w *rbacWriter) rbac(r *rbacv3.RBAC) {
	if r.AuditLoggingOptions != nil {
		w.ok = false
		return
	}
	w.open()
	if r.Action != 0 {
		name, known := rbacv3.RBAC_Action_name[int32(r.Action)]
		if !known {
			w.ok = false // protojson writes the number
			return
		}
		w.key("action")
		w.str(name)
	}
	if len(r.Policies) > 0 {
		w.key("policies")
		w.open()
		names := make([]string, 0, len(r.Policies))
		for name := range r.Policies {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if !htmlSafeString(name) {
				w.ok = false
				return
			}
			w.key(name)
			if w.policy(r.Policies[name]); !w.ok {
				return
			}
		}
		w.close()
	}
	w.close()
}

// htmlSafeString reports whether every byte of s is one encoding/json writes as
// is (fastjson.HTMLSafe), so that the string needs no escaping.
func htmlSafeString(s string) bool {
	for i := 0; i < len(s); i++ {
		if !fastjson.HTMLSafe(s[i]) {
			return false
		}
	}
	return true
}

func (w *rbacWriter) policy(p *rbacv3.Policy) {
	if p == nil {
		// A nil map value: protojson writes the message's zero value.
		w.open()
		w.close()
		return
	}
	if p.Condition != nil || p.CheckedCondition != nil || p.CelConfig != nil {
		w.ok = false
		return
	}
	w.open()
	if len(p.Permissions) > 0 {
		w.key("permissions")
		w.list(len(p.Permissions), func(i int) { w.permission(p.Permissions[i]) })
	}
	if len(p.Principals) > 0 {
		w.key("principals")
		w.list(len(p.Principals), func(i int) { w.principal(p.Principals[i]) })
	}
	w.close()
}

func (w *rbacWriter) list(n int, elem func(int)) {
	w.b = append(w.b, '[')
	for i := range n {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		if elem(i); !w.ok {
			return
		}
	}
	w.b, w.comma = append(w.b, ']'), true
}

func (w *rbacWriter) permission(p *rbacv3.Permission) {
	if p == nil {
		w.ok = false // protojson refuses a nil list element
		return
	}
	w.open()
	switch r := p.Rule.(type) {
	case nil:
	case *rbacv3.Permission_Any:
		w.key("any")
		w.boolean(r.Any)
	case *rbacv3.Permission_AndRules:
		w.key("andRules")
		w.permissionSet(r.AndRules)
	case *rbacv3.Permission_OrRules:
		w.key("orRules")
		w.permissionSet(r.OrRules)
	case *rbacv3.Permission_NotRule:
		w.key("notRule")
		if r.NotRule == nil {
			w.ok = false
			return
		}
		w.permission(r.NotRule)
	default:
		w.ok = false
		return
	}
	w.close()
}

func (w *rbacWriter) permissionSet(s *rbacv3.Permission_Set) {
	if s == nil {
		w.ok = false
		return
	}
	w.open()
	if len(s.Rules) > 0 {
		w.key("rules")
		w.list(len(s.Rules), func(i int) { w.permission(s.Rules[i]) })
	}
	w.close()
}

func (w *rbacWriter) principal(p *rbacv3.Principal) {
	if p == nil {
		w.ok = false
		return
	}
	w.open()
	switch id := p.Identifier.(type) {
	case nil:
	case *rbacv3.Principal_AndIds:
		w.key("andIds")
		w.principalSet(id.AndIds)
	case *rbacv3.Principal_OrIds:
		w.key("orIds")
		w.principalSet(id.OrIds)
	case *rbacv3.Principal_Any:
		w.key("any")
		w.boolean(id.Any)
	case *rbacv3.Principal_Authenticated_:
		w.key("authenticated")
		if id.Authenticated == nil {
			w.ok = false
			return
		}
		w.open()
		if m := id.Authenticated.PrincipalName; m != nil {
			w.key("principalName")
			w.stringMatcher(m)
		}
		w.close()
	case *rbacv3.Principal_NotId:
		w.key("notId")
		if id.NotId == nil {
			w.ok = false
			return
		}
		w.principal(id.NotId)
	default:
		w.ok = false
		return
	}
	w.close()
}

func (w *rbacWriter) principalSet(s *rbacv3.Principal_Set) {
	if s == nil {
		w.ok = false
		return
	}
	w.open()
	if len(s.Ids) > 0 {
		w.key("ids")
		w.list(len(s.Ids), func(i int) { w.principal(s.Ids[i]) })
	}
	w.close()
}

func (w *rbacWriter) stringMatcher(m *matcherv3.StringMatcher) {
	w.open()
	switch p := m.MatchPattern.(type) {
	case nil:
	case *matcherv3.StringMatcher_Exact:
		w.key("exact")
		w.str(p.Exact)
	case *matcherv3.StringMatcher_Prefix:
		w.key("prefix")
		w.str(p.Prefix)
	case *matcherv3.StringMatcher_Suffix:
		w.key("suffix")
		w.str(p.Suffix)
	case *matcherv3.StringMatcher_Contains:
		w.key("contains")
		w.str(p.Contains)
	default:
		w.ok = false
		return
	}
	if m.IgnoreCase {
		w.key("ignoreCase")
		w.boolean(true)
	}
	w.close()
}
