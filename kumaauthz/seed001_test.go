package kumaauthz

import (
	"testing"

	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/config/rbac/v3"

	"github.com/meshguard/meshguard/api"
)

const (
	td        = "spiffe://trust-domain.mesh/"
	operator  = "kind: MeshTrafficPermission\nmetadata: {name: by-mesh-operator, namespace: kuma-system}\n"
	owner     = "kind: MeshTrafficPermission\nmetadata: {name: by-backend-owner, namespace: kuma-system}\n"
	backendDP = "  targetRef: {kind: Dataplane, labels: {app: backend}}\n"
)

// expectation is one request and what the enforced and shadow matchers decide.
type expectation struct {
	id             string // peer SPIFFE ID; "" means a peer without URI SAN
	sni            string // server name of the peer's TLS hello
	method, path   string // only for the HTTP filter
	allow          bool
	name           string // expected action name (policy or "default")
	shadowAllow    bool
	httpAllow      *bool // decision of the HTTP filter when one is emitted
	httpShadowDeny bool
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

// seed001Story is one user story of the SPIFFE-matches MADR: the policies, the group to check
// and the requests with the decisions the story expects.
type seed001Story struct {
	story    string
	policies string
	target   api.RefKind // which group to check
	want     []expectation
}

// seed001Stories lists the user stories; the JSON equality tests render them too.
func seed001Stories() []seed001Story {
	return []seed001Story{
		{"MO2 explicit deny the owner cannot override", operator + `spec:
  default:
    deny:
      - spiffeId: {type: Exact, value: "spiffe://trust-domain.mesh/ns/default/sa/api-gateway"}
      - spiffeId: {type: Exact, value: "spiffe://trust-domain.mesh/ns/default/sa/legacy-workload"}
      - spiffeId: {type: Prefix, value: "spiffe://legacy.mesh/"}
---
` + owner + "spec:\n" + backendDP + `  default:
    allow:
      - spiffeId: {type: Prefix, value: "spiffe://trust-domain.mesh/"}
      - spiffeId: {type: Prefix, value: "spiffe://legacy.mesh/"}
`, api.RefDataplane, []expectation{
			{id: td + "ns/default/sa/api-gateway", name: "kuma-system/by-mesh-operator"},
			{id: td + "ns/default/sa/legacy-workload", name: "kuma-system/by-mesh-operator"},
			{id: "spiffe://legacy.mesh/ns/x/sa/y", name: "kuma-system/by-mesh-operator"},
			{id: td + "ns/default/sa/frontend", allow: true, shadowAllow: true, name: "kuma-system/by-backend-owner"},
		}},
		{"MO3 observability allowed everywhere by default", operator + `spec:
  default:
    allow:
      - spiffeId: {type: Prefix, value: "spiffe://trust-domain.mesh/ns/observability"}
`, api.RefMesh, []expectation{
			{id: td + "ns/observability/sa/prometheus", allow: true, shadowAllow: true, name: "kuma-system/by-mesh-operator"},
			{id: td + "ns/default/sa/frontend", name: DefaultActionName},
		}},
		{"MO4 observability may read /metrics only", operator + `spec:
  default:
    allow:
      - spiffeId: {type: Prefix, value: "spiffe://trust-domain.mesh/ns/observability"}
        path: {type: Prefix, value: /metrics}
`, api.RefMesh, []expectation{
			{id: td + "ns/observability/sa/prometheus", method: "GET", path: "/metrics", allow: true, shadowAllow: true, name: "kuma-system/by-mesh-operator", httpAllow: yes()},
			{id: td + "ns/observability/sa/prometheus", method: "GET", path: "/admin", allow: true, shadowAllow: true, name: "kuma-system/by-mesh-operator", httpAllow: no()},
			{id: td + "ns/default/sa/frontend", method: "GET", path: "/metrics", name: DefaultActionName, httpAllow: no()},
		}},
		{"SO1 owner grants any client unless the operator denied it", operator + `spec:
  default:
    deny:
      - spiffeId: {type: Exact, value: "spiffe://trust-domain.mesh/ns/default/sa/frontend"}
---
` + owner + "spec:\n" + backendDP + `  default:
    allow:
      - spiffeId: {type: Prefix, value: "spiffe://trust-domain.mesh/"}
`, api.RefDataplane, []expectation{
			{id: td + "ns/default/sa/frontend", name: "kuma-system/by-mesh-operator"},
			{id: td + "ns/team/sa/anything", allow: true, shadowAllow: true, name: "kuma-system/by-backend-owner"},
			{id: "spiffe://elsewhere/ns/a/sa/b", name: DefaultActionName},
		}},
		{"SO2 owner opts out of mesh-wide observability", operator + `spec:
  default:
    allow:
      - spiffeId: {type: Prefix, value: "spiffe://trust-domain.mesh/ns/observability"}
---
` + owner + "spec:\n" + backendDP + `  default:
    deny:
      - spiffeId: {type: Prefix, value: "spiffe://trust-domain.mesh/ns/observability"}
`, api.RefDataplane, []expectation{
			{id: td + "ns/observability/sa/prometheus", name: "kuma-system/by-backend-owner"},
		}},
		{"SO2 other services keep observability access", operator + `spec:
  default:
    allow:
      - spiffeId: {type: Prefix, value: "spiffe://trust-domain.mesh/ns/observability"}
---
` + owner + "spec:\n" + backendDP + `  default:
    deny:
      - spiffeId: {type: Prefix, value: "spiffe://trust-domain.mesh/ns/observability"}
`, api.RefMesh, []expectation{
			{id: td + "ns/observability/sa/prometheus", allow: true, shadowAllow: true, name: "kuma-system/by-mesh-operator"},
		}},
		{"SO3 block a malicious client that was allowed", operator + `spec:
  default:
    allow:
      - spiffeId: {type: Prefix, value: "spiffe://trust-domain.mesh/"}
---
` + owner + "spec:\n" + backendDP + `  default:
    deny:
      - spiffeId: {type: Exact, value: "spiffe://trust-domain.mesh/ns/default/sa/malicious"}
`, api.RefDataplane, []expectation{
			{id: td + "ns/default/sa/malicious", name: "kuma-system/by-backend-owner"},
			{id: td + "ns/default/sa/nice", allow: true, shadowAllow: true, name: "kuma-system/by-mesh-operator"},
		}},
		{"SO4 GET public, POST for writers only", owner + "spec:\n" + backendDP + `  default:
    allow:
      - method: GET
      - method: POST
        spiffeId: {type: Exact, value: "spiffe://trust-domain.mesh/ns/default/sa/writer-1"}
      - method: POST
        spiffeId: {type: Exact, value: "spiffe://trust-domain.mesh/ns/default/sa/writer-2"}
      - method: POST
        spiffeId: {type: Prefix, value: "spiffe://trust-domain.mesh/ns/writers"}
`, api.RefDataplane, []expectation{
			{id: td + "ns/default/sa/reader", method: "GET", path: "/", allow: true, shadowAllow: true, name: "kuma-system/by-backend-owner", httpAllow: yes()},
			{id: td + "ns/default/sa/reader", method: "POST", path: "/", allow: true, shadowAllow: true, name: "kuma-system/by-backend-owner", httpAllow: no()},
			{id: td + "ns/default/sa/writer-2", method: "POST", path: "/", allow: true, shadowAllow: true, name: "kuma-system/by-backend-owner", httpAllow: yes()},
			{id: td + "ns/writers/sa/w9", method: "POST", path: "/x", allow: true, shadowAllow: true, name: "kuma-system/by-backend-owner", httpAllow: yes()},
		}},
		{"allowWithShadowDeny: enforced allow, shadow deny", operator + `spec:
  default:
    deny:
      - spiffeId: {type: Exact, value: "spiffe://trust-domain.mesh/ns/default/sa/api-gateway"}
    allowWithShadowDeny:
      - spiffeId: {type: Prefix, value: "spiffe://trust-domain.mesh/ns/legacy"}
    allow:
      - spiffeId: {type: Prefix, value: "spiffe://trust-domain.mesh/"}
`, api.RefMesh, []expectation{
			{id: td + "ns/legacy/sa/old", allow: true, shadowAllow: false, name: "kuma-system/by-mesh-operator"},
			{id: td + "ns/default/sa/api-gateway", name: "kuma-system/by-mesh-operator"},
			{id: td + "ns/default/sa/web", allow: true, shadowAllow: true, name: "kuma-system/by-mesh-operator"},
		}},
		{"Kuma's spec.rules[].default spelling", "kind: MeshTrafficPermission\nmetadata: {name: kuma-form, namespace: kuma-system}\n" + `spec:
  targetRef: {kind: Mesh}
  rules:
    - default:
        allow:
          - spiffeID: {type: Exact, value: "spiffe://trust-domain.mesh/ns/a/sa/b"}
`, api.RefMesh, []expectation{
			{id: td + "ns/a/sa/b", allow: true, shadowAllow: true, name: "kuma-system/kuma-form"},
			{id: td + "ns/a/sa/c", name: DefaultActionName},
		}},
		{"Kuma 2.14 sni matchers: sni alone, spiffeID and sni together", kuma214SNIYAML, api.RefDataplane, []expectation{
			{id: td + "ns/x/sa/y", sni: "sni.extsvc.default.zone-1.aws-aurora.8443", allow: true, shadowAllow: true, name: "kuma-system/by-backend-owner"},
			{sni: "sni.extsvc.default.zone-1.aws-aurora.8443", allow: true, shadowAllow: true, name: "kuma-system/by-backend-owner"},
			{id: td + "ns/default/sa/legacy", sni: "sni.extsvc.default.zone-1.aws-aurora.8443", name: "kuma-system/by-mesh-operator"},
			{id: td + "ns/backend-ns/sa/backend", sni: "backend.backend-ns.svc.cluster.local", allow: true, shadowAllow: true, name: "kuma-system/by-backend-owner"},
			{id: td + "ns/backend-ns/sa/backend", sni: "other.svc", name: DefaultActionName},
			{id: td + "ns/other/sa/x", sni: "backend.backend-ns.svc.cluster.local", name: DefaultActionName},
		}},
		{"a matcher without condition matches no client", "kind: MeshTrafficPermission\nmetadata: {name: empty, namespace: kuma-system}\n" + `spec:
  rules:
    - default:
        allow:
          - {}
`, api.RefMesh, []expectation{
			{id: td + "ns/a/sa/b", name: DefaultActionName},
		}},
	}
}

// TestSeed001UserStories verifies every user story of the SPIFFE-matches MADR on the compiled
// matcher trees, walked by the test evaluator.
func TestSeed001UserStories(t *testing.T) {
	for _, tt := range seed001Stories() {
		t.Run(tt.story, func(t *testing.T) {
			pvs, err := BuildPreviews(policiesFromYAML(t, tt.policies), Options{})
			if err != nil {
				t.Fatal(err)
			}
			var pv *Preview
			for i := range pvs {
				if pvs[i].Target.Kind == tt.target {
					pv = &pvs[i]
				}
			}
			if pv == nil || pv.Form != FormMatcher {
				t.Fatalf("no matcher preview for %s in %+v", tt.target, pvs)
			}
			for _, e := range tt.want {
				var sans []string
				if e.id != "" {
					sans = []string{e.id}
				}
				req := request{sans: sans, sni: e.sni, headers: map[string]string{":method": e.method, ":path": e.path}}
				act, name := evalMatcher(t, pv.RBAC.GetMatcher(), req)
				if (act == rbacv3.RBAC_ALLOW) != e.allow || name != e.name {
					t.Errorf("%s: enforced %v by %q, want allow=%v by %q", e.id, act, name, e.allow, e.name)
				}
				if sact, _ := evalMatcher(t, pv.RBAC.GetShadowMatcher(), req); (sact == rbacv3.RBAC_ALLOW) != e.shadowAllow {
					t.Errorf("%s: shadow %v, want allow=%v", e.id, sact, e.shadowAllow)
				}
				if (pv.HTTPRBAC != nil) != (e.httpAllow != nil) {
					t.Fatalf("HTTP filter emitted: %v, expected: %v", pv.HTTPRBAC != nil, e.httpAllow != nil)
				}
				if e.httpAllow != nil {
					if hact, _ := evalMatcher(t, pv.HTTPRBAC.GetMatcher(), req); (hact == rbacv3.RBAC_ALLOW) != *e.httpAllow {
						t.Errorf("%s %s %s: HTTP filter %v, want allow=%v", e.id, e.method, e.path, hact, *e.httpAllow)
					}
				}
			}
		})
	}
}

// Mesh operator story 1: with no MeshTrafficPermission nothing is allowed; an
// empty matcher list denies everything through the "default" action.
func TestSeed001DenyByDefault(t *testing.T) {
	res, err := CompileMatchers(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	act, name := evalMatcher(t, res.Config.GetMatcher(), request{sans: []string{td + "ns/a/sa/b"}})
	if act != rbacv3.RBAC_DENY || name != DefaultActionName {
		t.Errorf("got %v %q, want DENY default", act, name)
	}
}

// The uri_san input joins all URI SANs with commas. With a legacy certificate that
// carries kuma:// tags next to the SPIFFE ID, an Exact matcher no longer matches:
// this pins the caveat documented in docs/rbac.md.
func TestURISanCommaJoinCaveat(t *testing.T) {
	res, err := CompileMatchers([]SpiffeEntry{{Policy: "p", List: ListAllow,
		Match: api.SpiffeMatch{SpiffeId: &api.StringMatch{Type: "Exact", Value: td + "ns/a/sa/b"}}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	one, _ := evalMatcher(t, res.Config.GetMatcher(), request{sans: []string{td + "ns/a/sa/b"}})
	two, _ := evalMatcher(t, res.Config.GetMatcher(), request{sans: []string{td + "ns/a/sa/b", "kuma://env/dev"}})
	if one != rbacv3.RBAC_ALLOW || two != rbacv3.RBAC_DENY {
		t.Errorf("single SAN: %v, two SANs: %v; want ALLOW, DENY", one, two)
	}
}

// A policy name that is not valid UTF-8 (which a Go caller, not a JSON decoder, can
// hand in; FuzzMarshalJSONCompact found it) compiles instead of panicking in the
// Action's packing.
func TestMatcherPolicyNameInvalidUTF8(t *testing.T) {
	res, err := CompileMatchers([]SpiffeEntry{{Policy: "ns/\xffbad", List: ListAllow,
		Match: api.SpiffeMatch{SpiffeId: &api.StringMatch{Type: "Exact", Value: td + "ns/a/sa/b"}}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	act, name := evalMatcher(t, res.Config.GetMatcher(), request{sans: []string{td + "ns/a/sa/b"}})
	if act != rbacv3.RBAC_ALLOW || name != "ns/\uFFFDbad" {
		t.Errorf("got %v %q, want ALLOW by the sanitized name", act, name)
	}
}
