package kumaauthz

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	xdsmatcher "github.com/cncf/xds/go/xds/type/matcher/v3"
	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/config/rbac/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	"github.com/meshguard/meshguard/api"
)

func exactID(uri string) *rbacv3.Principal {
	return &rbacv3.Principal{Identifier: &rbacv3.Principal_Authenticated_{Authenticated: &rbacv3.Principal_Authenticated{
		PrincipalName: &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: uri}}}}}
}

// TestEvalPrincipalAndRBAC pins the evaluator on hand-built messages: and/or/not,
// ALLOW and DENY actions, no RBAC at all, and errors for what it does not model.
func TestEvalPrincipalAndRBAC(t *testing.T) {
	web, dev := exactID("spiffe://default/web"), exactID("kuma://env/dev")
	and := andP([]*rbacv3.Principal{web, notP(dev)})
	sans := func(s ...string) []string { return s }
	for _, tt := range []struct {
		p    *rbacv3.Principal
		sans []string
		want bool
	}{
		{web, sans("spiffe://default/web"), true},
		{web, sans("spiffe://default/webx"), false},
		{and, sans("spiffe://default/web", "kuma://env/prod"), true},
		{and, sans("spiffe://default/web", "kuma://env/dev"), false},
		{orP([]*rbacv3.Principal{web, dev}), sans("kuma://env/dev"), true},
		{anyP(), nil, true},
	} {
		got, err := EvalPrincipal(tt.p, tt.sans)
		if err != nil || got != tt.want {
			t.Errorf("%s on %v: got %v, %v; want %v", principalString(tt.p), tt.sans, got, err, tt.want)
		}
	}
	allow := allowRBAC(PolicyName, []*rbacv3.Principal{web})
	if ok, name, _ := EvalRBAC(allow, sans("spiffe://default/web")); !ok || name != PolicyName {
		t.Errorf("ALLOW RBAC: got %v by %q", ok, name)
	}
	if ok, _, _ := EvalRBAC(allowRBAC(PolicyName, nil), sans("spiffe://default/web")); ok {
		t.Error("an ALLOW RBAC without policies must deny")
	}
	deny := allowRBAC(PolicyName, []*rbacv3.Principal{web})
	deny.Action = rbacv3.RBAC_DENY
	if ok, _, _ := EvalRBAC(deny, sans("spiffe://default/web")); ok {
		t.Error("a DENY RBAC must deny the principals it names")
	}
	if ok, _, _ := EvalRBAC(nil, nil); !ok {
		t.Error("no RBAC admits everyone")
	}
	odd := allowRBAC(PolicyName, []*rbacv3.Principal{{Identifier: &rbacv3.Principal_SourceIp{}}})
	if _, _, err := EvalRBAC(odd, nil); err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("unsupported principal: err %v", err)
	}
}

// TestEvalMatcherInputs pins the matcher evaluator: uri_san joins SANs, a peer
// without SAN or SNI matches no predicate on them, header inputs need the HTTP
// filter, nested matchers and a missing on_no_match.
func TestEvalMatcherInputs(t *testing.T) {
	res, err := CompileMatchers([]SpiffeEntry{
		{Policy: "ns/a", Path: "spec.default.allow[0]", List: ListAllow, Match: api.SpiffeMatch{SpiffeID: &api.StringMatch{Type: "Exact", Value: "spiffe://td/x"}}},
		{Policy: "ns/b", Path: "spec.default.allow[0]", List: ListAllow, Match: api.SpiffeMatch{SNI: &api.StringMatch{Type: "Exact", Value: "s.svc"}}},
		{Policy: "ns/c", Path: "spec.default.allow[0]", List: ListAllow, Match: api.SpiffeMatch{Method: "GET"}},
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		req  Request
		want string
	}{
		{Request{SANs: []string{"spiffe://td/x"}}, "ns/a"},
		{Request{SANs: []string{"spiffe://td/x", "kuma://env/dev"}}, "ns/c"}, // joined: Exact fails; ns/c's L4 stand-in matches any SAN
		{Request{SNI: "s.svc"}, "ns/b"},
		{Request{}, DefaultActionName},
	} {
		_, name, err := EvalMatcher(res.Config.GetMatcher(), tt.req)
		if err != nil || name != tt.want {
			t.Errorf("%+v: got %q, %v; want %q", tt.req, name, err, tt.want)
		}
	}
	if _, _, err := EvalMatcher(res.HTTP.GetMatcher(), Request{SANs: []string{"spiffe://td/y"}, Method: "GET"}); err == nil {
		t.Error("a header input read by the network filter must be an error")
	}
	if act, name, err := EvalMatcher(res.HTTP.GetMatcher(), Request{SANs: []string{"spiffe://td/y"}, Method: "GET", HTTP: true}); err != nil || act != rbacv3.RBAC_ALLOW || name != "ns/c" {
		t.Errorf("HTTP filter: got %v %q %v", act, name, err)
	}
	nested := &xdsmatcher.Matcher{OnNoMatch: &xdsmatcher.Matcher_OnMatch{OnMatch: &xdsmatcher.Matcher_OnMatch_Matcher{Matcher: res.Config.GetMatcher()}}}
	if _, name, err := EvalMatcher(nested, Request{SANs: []string{"spiffe://td/x"}}); err != nil || name != "ns/a" {
		t.Errorf("nested: got %q %v", name, err)
	}
	if _, _, err := EvalMatcher(&xdsmatcher.Matcher{}, Request{}); err == nil {
		t.Error("a tree without on_no_match must be an error")
	}
}

// proxyOf is a proxy of mesh default with the given tags.
func proxyOf(ns string, tags ...string) Proxy {
	m := map[string]string{}
	for i := 0; i+1 < len(tags); i += 2 {
		m[tags[i]] = tags[i+1]
	}
	return Proxy{Mesh: "default", Namespace: ns, Tags: m}
}

func decideFor(t *testing.T, ps []Policy, px Proxy, req Request) Decision {
	t.Helper()
	sel := SelectPolicies(ps, px, "")
	d, err := Decide(sel.Policies, px.Mesh, req, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDecideSeed000 checks the MeshTrafficPermission MADR's worked example: the
// three policies merged for backend, and the deciding item for clients of every
// rule-view combination.
func TestDecideSeed000(t *testing.T) {
	ps := policiesFromYAML(t, seed000YAML)
	backend := proxyOf("", api.ServiceTag, "backend")
	type want struct {
		allow, shadow bool
		policy, path  string
	}
	for _, tt := range []struct {
		tags map[string]string
		want want
	}{
		{map[string]string{api.ServiceTag: "web", "env": "prod"}, want{true, false, "kuma-system/backend", "spec.from[1]"}},
		{map[string]string{api.ServiceTag: "db", "env": "dev", "kuma.io/zone": "us-east"}, want{true, true, "kuma-system/backend", "spec.from[0]"}},
		// global sorts after global-2 (smaller name, more specific): its Mesh DENY
		// covers global-2's zone item.
		{map[string]string{api.ServiceTag: "db", "kuma.io/zone": "us-east"}, want{false, false, "kuma-system/global", "spec.from[0]"}},
		{map[string]string{api.ServiceTag: "db"}, want{false, false, "kuma-system/global", "spec.from[0]"}},
	} {
		d := decideFor(t, ps, backend, Request{SANs: ClientSANs("default", tt.tags)})
		if got := strings.Join(d.Policies, ","); got != "kuma-system/global-2,kuma-system/global,kuma-system/backend" {
			t.Fatalf("merged policies %s", got)
		}
		got := want{d.Enforced.Allow, d.Shadow.Allow, d.Enforced.Decider.Policy, d.Enforced.Decider.Path}
		if got != tt.want {
			t.Errorf("%v: got %+v, want %+v", tt.tags, got, tt.want)
		}
	}
	// A proxy no policy selects gets Kuma's default.
	d := decideFor(t, ps[2:], proxyOf("", api.ServiceTag, "other"), Request{SANs: ClientSANs("default", map[string]string{api.ServiceTag: "web"})})
	if !d.Default || d.Enforced.Allow || !strings.Contains(d.Enforced.Decider.Match, "no policy selects it: default is DENY") {
		t.Errorf("default decision: %+v", d)
	}
}

// TestDecideSeed001 checks every user story of the SPIFFE-matches MADR through
// SelectPolicies and Decide: the enforced and shadow decisions, the deciding policy
// and, where the story has method/path conditions, the HTTP filter's decision.
func TestDecideSeed001(t *testing.T) {
	for _, tt := range seed001Stories() {
		t.Run(tt.story, func(t *testing.T) {
			ps := policiesFromYAML(t, tt.policies)
			px := proxyOf("backend-ns", "app", "other")
			if tt.target == api.RefDataplane {
				px = proxyOf("backend-ns", "app", "backend")
			}
			for _, e := range tt.want {
				var sans []string
				if e.id != "" {
					sans = []string{e.id}
				}
				d := decideFor(t, ps, px, Request{SANs: sans, SNI: e.sni, Method: e.method, Path: e.path})
				want := e.allow && (e.httpAllow == nil || *e.httpAllow)
				if d.Enforced.Allow != want {
					t.Errorf("%s %s %s: allow %v by %+v, want %v", e.id, e.method, e.path, d.Enforced.Allow, d.Enforced.Decider, want)
				}
				if e.httpAllow == nil && d.Enforced.Decider.Policy != e.name {
					t.Errorf("%s: decided by %q, want %q", e.id, d.Enforced.Decider.Policy, e.name)
				}
				if e.httpAllow == nil && d.Shadow.Allow != e.shadowAllow {
					t.Errorf("%s: shadow %v, want %v", e.id, d.Shadow.Allow, e.shadowAllow)
				}
				if d.Form != FormMatcher {
					t.Errorf("form %s", d.Form)
				}
			}
		})
	}
}

// multiPolicyYAML is a realistic set: a mesh-wide deny by the operator, namespace
// allows by producers, and the workload owner's override for one Dataplane.
const multiPolicyYAML = `kind: MeshTrafficPermission
metadata: {name: deny-all, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from:
    - targetRef: {kind: Mesh}
      default: {action: Deny}
---
kind: MeshTrafficPermission
metadata: {name: shop-clients, namespace: shop, labels: {kuma.io/policy-role: producer}}
spec:
  targetRef: {kind: Mesh}
  from:
    - targetRef: {kind: MeshSubset, tags: {k8s.kuma.io/namespace: shop}}
      default: {action: Allow}
    - targetRef: {kind: MeshSubset, tags: {k8s.kuma.io/namespace: legacy}}
      default: {action: AllowWithShadowDeny}
---
kind: MeshTrafficPermission
metadata: {name: payments-owner, namespace: shop}
spec:
  targetRef: {kind: Dataplane, labels: {app: payments}}
  from:
    - targetRef: {kind: MeshSubset, tags: {app: cart}}
      default: {action: Deny}
`

// TestDecideMultiPolicy checks the multi-policy set: merge order, the owner's
// override, the producer's allow, the shadow deny, and the operator's deny.
func TestDecideMultiPolicy(t *testing.T) {
	ps := policiesFromYAML(t, multiPolicyYAML)
	payments := proxyOf("shop", api.ServiceTag, "payments_shop_svc_80", "app", "payments")
	client := func(ns string, tags ...string) Request {
		m := map[string]string{api.LabelNamespace: ns}
		for i := 0; i+1 < len(tags); i += 2 {
			m[tags[i]] = tags[i+1]
		}
		return Request{SANs: ClientSANs("default", m)}
	}
	for _, tt := range []struct {
		name        string
		req         Request
		allow       bool
		shadow      bool
		policy, why string
	}{
		{"cart is denied by the owner", client("shop", api.ServiceTag, "cart_shop_svc_80", "app", "cart"), false, false, "shop/payments-owner", "spec.from[0]"},
		{"web of shop is allowed by the producer", client("shop", api.ServiceTag, "web_shop_svc_80", "app", "web"), true, true, "shop/shop-clients", "spec.from[0]"},
		{"legacy is allowed, shadow deny", client("legacy", api.ServiceTag, "old_legacy_svc_80"), true, false, "shop/shop-clients", "spec.from[1]"},
		{"others hit the operator's deny", client("other", api.ServiceTag, "x_other_svc_80"), false, false, "kuma-system/deny-all", "spec.from[0]"},
	} {
		d := decideFor(t, ps, payments, tt.req)
		if got := strings.Join(d.Policies, ","); got != "kuma-system/deny-all,shop/shop-clients,shop/payments-owner" {
			t.Fatalf("merged %s", got)
		}
		got := []any{d.Enforced.Allow, d.Shadow.Allow, d.Enforced.Decider.Policy, d.Enforced.Decider.Path}
		if diff := cmp.Diff([]any{tt.allow, tt.shadow, tt.policy, tt.why}, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	// Another workload of shop does not get the owner's override.
	d := decideFor(t, ps, proxyOf("shop", api.ServiceTag, "orders_shop_svc_80", "app", "orders"), client("shop", "app", "cart"))
	if !d.Enforced.Allow || len(d.Policies) != 2 {
		t.Errorf("orders: %+v", d)
	}
}

// TestSelectPoliciesNotes checks the notes for route-level policies and
// policies of one inbound when no section is asked for.
func TestSelectPoliciesNotes(t *testing.T) {
	ps := policiesFromYAML(t, `kind: MeshTrafficPermission
metadata: {name: route, namespace: kuma-system}
spec:
  targetRef: {kind: MeshHTTPRoute, name: r}
  from: [{targetRef: {kind: Mesh}, default: {action: Allow}}]
---
kind: MeshTrafficPermission
metadata: {name: section, namespace: kuma-system}
spec:
  targetRef: {kind: Dataplane, labels: {app: a}, sectionName: http}
  from: [{targetRef: {kind: Mesh}, default: {action: Allow}}]
`)
	sel := SelectPolicies(ps, proxyOf("", "app", "a"), "")
	if len(sel.Policies) != 0 || len(sel.Notes) != 2 {
		t.Fatalf("got %d policies, notes %q", len(sel.Policies), sel.Notes)
	}
	px := proxyOf("", "app", "a")
	px.Section = "http"
	if sel := SelectPolicies(ps, px, ""); len(sel.Policies) != 1 {
		t.Errorf("with the section: %d policies", len(sel.Policies))
	}
}

// lastMatching is the test's reading of the merged list: the index of the last
// item matching the client (itemMatches, written from the tags), or -1.
func lastMatching(items []MergedItem, c client, mesh string) int {
	for i := len(items) - 1; i >= 0; i-- {
		if itemMatches(items[i].From, c, mesh) {
			return i
		}
	}
	return -1
}

// TestCheckAgreesWithIndependentEvaluation is the property `meshguard check`
// rests on: on random policy sets, random proxies and random clients, Decide
// (SelectPolicies, the production merge and compilation, the production evaluator)
// answers what the test's independent evaluators answer: the reference Applies,
// the last-matching-item rule (evalList) and the test walker of the emitted Envoy
// principals (evalRBAC), for the enforced and the shadow decision and the deciding
// item. It also checks that the RBAC check reads is the preview's RBAC wherever a
// preview group is exactly the proxy.
func TestCheckAgreesWithIndependentEvaluation(t *testing.T) {
	r := rand.New(rand.NewSource(18))
	same := 0
	for s := 0; s < 600; s++ {
		ps := randomTopPolicies(r, 1+r.Intn(10))
		mesh := propMeshes()[r.Intn(2)]
		px := Proxy{Mesh: mesh, Tags: map[string]string{api.ServiceTag: propValues()[r.Intn(2)]}}
		if r.Intn(2) == 0 {
			px.Tags["env"] = propValues()[r.Intn(3)]
		}
		if r.Intn(3) == 0 {
			px.Namespace = []string{"ns1", "ns2"}[r.Intn(2)]
		}
		sel := SelectPolicies(ps, px, "")
		// Independent selection and order.
		var ref []Policy
		for _, p := range ps {
			if refApplies(TargetOf(p, "kuma-system"), px.Target()) {
				ref = append(ref, p)
			}
		}
		SortPolicies(ref, "kuma-system")
		if diff := cmp.Diff(refList(ref), refList(sel.Policies)); diff != "" {
			t.Fatalf("set %d: selection differs (-ref +got):\n%s", s, diff)
		}
		items := MergeFrom(ref)
		indep, err := CompileFrom(mesh, items, Options{Form: FormExpanded, MaxExpandedRules: 1 << 16})
		if err != nil {
			t.Fatal(err)
		}
		for c := 0; c < 25; c++ {
			cl := randomClient(r)
			d, err := Decide(sel.Policies, mesh, Request{SANs: cl.sans()}, Options{})
			if err != nil {
				t.Fatalf("set %d: %v", s, err)
			}
			want := evalList(t, items, cl, mesh)
			if len(ref) > 0 {
				if rb := evalRBAC(t, indep.Config.GetRules(), cl.sans()); rb != want.allow {
					t.Fatalf("set %d: the independent walker disagrees with the list", s)
				}
			}
			shadow := d.Enforced.Allow
			if d.Shadow != nil {
				shadow = d.Shadow.Allow
			}
			if d.Enforced.Allow != want.allow || shadow != want.shadowAllow {
				t.Fatalf("set %d client %v: check allow=%v shadow=%v, independent %+v\n%s", s, cl, d.Enforced.Allow, shadow, want, listString(items))
			}
			wantDecider := DefaultActionName
			if i := lastMatching(items, cl, mesh); i >= 0 {
				wantDecider = items[i].Policy + " " + items[i].Path()
			}
			if got := strings.TrimSpace(d.Enforced.Decider.Policy + " " + d.Enforced.Decider.Path); got != wantDecider {
				t.Fatalf("set %d client %v: decided by %q, want %q\n%s", s, cl, got, wantDecider, listString(items))
			}
		}
		// Where a preview group is exactly this proxy (no namespace, the service tag
		// only), check reads the preview's RBAC.
		if px.Namespace == "" && len(px.Tags) == 1 && len(sel.Policies) > 0 {
			pvs, err := BuildPreviews(ps, Options{Form: FormCompact})
			if err != nil {
				t.Fatal(err)
			}
			d, err := Decide(sel.Policies, mesh, Request{}, Options{Form: FormCompact})
			if err != nil {
				t.Fatal(err)
			}
			for _, pv := range pvs {
				if pv.Target.Kind == api.RefMeshService && pv.Target.Name == px.Tags[api.ServiceTag] && pv.Target.Mesh == mesh && pv.Target.Namespace == "" {
					if !proto.Equal(pv.RBAC, d.RBAC) {
						t.Fatalf("set %d: check's RBAC differs from the preview's for %s", s, pv.Scope)
					}
					same++
				}
			}
		}
	}
	if same < 20 {
		t.Errorf("only %d sets compared check's RBAC with a preview's", same)
	}
}

func refList(ps []Policy) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.Ref())
	}
	return out
}

// TestCheckMatchersAgreeWithIndependentEvaluation: on random SPIFFE-matcher
// policies and requests, Decide answers what the SPIFFE-matches MADR's rules
// (seed001Decide) and the test walker of the emitted trees (evalMatcher) answer.
func TestCheckMatchersAgreeWithIndependentEvaluation(t *testing.T) {
	r := rand.New(rand.NewSource(181))
	ids := []string{"spiffe://td/ns/a/sa/x", "spiffe://td/ns/a/sa/y", "spiffe://td/ns/b/sa/x", "spiffe://other/ns/a/sa/x"}
	prefixes := []string{"spiffe://td/", "spiffe://td/ns/a", "spiffe://other/"}
	lists := []string{ListDeny, ListAllowWithShadowDeny, ListAllow}
	for s := 0; s < 800; s++ {
		var ps []Policy
		for k, n := 0, 1+r.Intn(3); k < n; k++ {
			m := api.MTPMatches{}
			for i, n := 0, r.Intn(5); i < n; i++ {
				sm := api.SpiffeMatch{}
				if r.Intn(2) == 0 {
					sm.SpiffeID = &api.StringMatch{Type: "Exact", Value: ids[r.Intn(len(ids))]}
				} else {
					sm.SpiffeID = &api.StringMatch{Type: "Prefix", Value: prefixes[r.Intn(len(prefixes))]}
				}
				if r.Intn(4) == 0 {
					sm.SNI = &api.StringMatch{Type: "Exact", Value: "a.svc"}
				}
				if r.Intn(4) == 0 {
					sm.Method = "POST"
				}
				l := &m.Allow
				switch lists[r.Intn(3)] {
				case ListDeny:
					l = &m.Deny
				case ListAllowWithShadowDeny:
					l = &m.AllowWithShadowDeny
				}
				if *l == nil {
					*l = &[]api.SpiffeMatch{}
				}
				**l = append(**l, sm)
			}
			ps = append(ps, Policy{Name: fmt.Sprintf("p%d", k), Namespace: "kuma-system", Mesh: "default", Spec: api.MeshTrafficPermissionSpec{Default: &m}})
		}
		SortPolicies(ps, "kuma-system")
		var entries []SpiffeEntry
		for _, p := range ps {
			entries = append(entries, SpiffeEntries(p)...)
		}
		compiled, err := CompileMatchers(entries, "")
		if err != nil {
			t.Fatal(err)
		}
		for c := 0; c < 20; c++ {
			id, sni := ids[r.Intn(len(ids))], []string{"", "a.svc"}[r.Intn(2)]
			method := []string{"GET", "POST"}[r.Intn(2)]
			d, err := Decide(ps, "default", Request{SANs: []string{id}, SNI: sni, Method: method, Path: "/"}, Options{})
			if err != nil {
				t.Fatalf("set %d: %v", s, err)
			}
			want, wantShadow := seed001Decide(entries, id, sni, method, "/", false), seed001Decide(entries, id, sni, method, "/", true)
			if d.Enforced.Allow != want || d.Shadow.Allow != wantShadow {
				t.Fatalf("set %d %s %s %s: check %v/%v, want %v/%v\n%+v", s, id, sni, method, d.Enforced.Allow, d.Shadow.Allow, want, wantShadow, entries)
			}
			tree := compiled.Config
			req := request{sans: []string{id}, sni: sni, headers: map[string]string{":method": method, ":path": "/"}}
			act, name := evalMatcher(t, tree.GetMatcher(), req)
			if d.Enforced.Filter == "network" && (d.Enforced.Decider.Policy != name || (act == rbacv3.RBAC_ALLOW) != d.Enforced.Allow) {
				t.Fatalf("set %d: network decided %v by %q, the walker %v by %q", s, d.Enforced.Allow, d.Enforced.Decider.Policy, act, name)
			}
			if d.Enforced.Filter == "http" {
				act, name = evalMatcher(t, compiled.HTTP.GetMatcher(), req)
				if d.Enforced.Decider.Policy != name || (act == rbacv3.RBAC_ALLOW) != d.Enforced.Allow {
					t.Fatalf("set %d: http decided %v by %q, the walker %v by %q", s, d.Enforced.Allow, d.Enforced.Decider.Policy, act, name)
				}
			}
		}
	}
}

// TestDecideDataplaneBeforeMeshService: Kuma 2.14 merges a Dataplane-targeted
// MeshTrafficPermission right after Mesh ones, before MeshService ones (its
// targetRef kind order), so a MeshService policy's Allow overrides a Dataplane
// policy's Deny for the same client: the MeshService policy decides.
func TestDecideDataplaneBeforeMeshService(t *testing.T) {
	ps := policiesFromYAML(t, `kind: MeshTrafficPermission
metadata: {name: pin-deny, namespace: kuma-system}
spec:
  targetRef: {kind: Dataplane, labels: {app: payments}}
  from: [{targetRef: {kind: Mesh}, default: {action: Deny}}]
---
kind: MeshTrafficPermission
metadata: {name: service-allow, namespace: kuma-system}
spec:
  targetRef: {kind: MeshService, name: payments_shop_svc_80}
  from: [{targetRef: {kind: Mesh}, default: {action: Allow}}]
`)
	payments := proxyOf("shop", api.ServiceTag, "payments_shop_svc_80", "app", "payments")
	d := decideFor(t, ps, payments, Request{SANs: ClientSANs("default", map[string]string{api.ServiceTag: "web_shop_svc_80"})})
	if got := strings.Join(d.Policies, ","); got != "kuma-system/pin-deny,kuma-system/service-allow" {
		t.Errorf("merged %s, want the Dataplane policy first", got)
	}
	if !d.Enforced.Allow || d.Enforced.Decider.Policy != "kuma-system/service-allow" {
		t.Errorf("decision %v by %s, want ALLOW by kuma-system/service-allow", d.Enforced.Allow, d.Enforced.Decider.Policy)
	}
}
