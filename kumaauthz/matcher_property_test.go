package kumaauthz

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/config/rbac/v3"

	"github.com/meshguard/meshguard/api"
)

// spiffeMatches is Kuma's reading of one matcher for a request (with the SPIFFE-matches
// MADR's HTTP conditions): every condition set must hold, and a matcher with no
// condition at all matches nothing (Kuma skips it).
func spiffeMatches(m api.SpiffeMatch, id, sni, method, path string, withHTTP bool) bool {
	sm, _ := m.Spiffe()
	if sm == nil && m.SNI == nil && m.Method == "" && m.Path == nil {
		return false
	}
	if sm != nil {
		if sm.Type == "Prefix" && !strings.HasPrefix(id, sm.Value) || sm.Type == "Exact" && id != sm.Value {
			return false
		}
	}
	if m.SNI != nil && m.SNI.Value != sni {
		return false
	}
	if withHTTP && m.Method != "" && m.Method != method {
		return false
	}
	if withHTTP && m.Path != nil && !strings.HasPrefix(path, m.Path.Value) {
		return false
	}
	return true
}

// seed001Decide: deny wins; then allow or allowWithShadowDeny allow; else deny. In
// shadow mode allowWithShadowDeny denies.
func seed001Decide(entries []SpiffeEntry, id, sni, method, path string, shadow bool) bool {
	denied, allowed := false, false
	for _, e := range entries {
		if !spiffeMatches(e.Match, id, sni, method, path, true) {
			continue
		}
		switch {
		case e.List == ListDeny || (shadow && e.List == ListAllowWithShadowDeny):
			denied = true
		default:
			allowed = true
		}
	}
	return allowed && !denied
}

// TestMatcherTreesMatchSeed001 checks on random matcher sets (spiffeID, sni, both,
// neither, with and without HTTP conditions) that the enforced and shadow trees
// decide what the SPIFFE-matches MADR's evaluation rules say, that the HTTP filter is
// exact, and that the network filter never denies a request the HTTP filter allows.
func TestMatcherTreesMatchSeed001(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	ids := []string{"spiffe://td/ns/a/sa/x", "spiffe://td/ns/a/sa/y", "spiffe://td/ns/b/sa/x", "spiffe://other/ns/a/sa/x"}
	prefixes := []string{"spiffe://td/", "spiffe://td/ns/a", "spiffe://td/ns/b/", "spiffe://other/"}
	snis := []string{"a.svc", "b.svc", ""}
	lists := []string{ListDeny, ListAllowWithShadowDeny, ListAllow}
	for s := 0; s < 1500; s++ {
		var entries []SpiffeEntry
		for i, n := 0, r.Intn(7); i < n; i++ {
			m := api.SpiffeMatch{}
			switch r.Intn(5) {
			case 0, 1:
				m.SpiffeId = &api.StringMatch{Type: "Exact", Value: ids[r.Intn(len(ids))]}
			case 2, 3:
				m.SpiffeID = &api.StringMatch{Type: "Prefix", Value: prefixes[r.Intn(len(prefixes))]}
			}
			if r.Intn(3) == 0 {
				m.SNI = &api.StringMatch{Type: "Exact", Value: snis[r.Intn(2)]}
			}
			if r.Intn(4) == 0 {
				m.Method = []string{"GET", "POST"}[r.Intn(2)]
			}
			if r.Intn(5) == 0 {
				m.Path = &api.StringMatch{Type: "Prefix", Value: "/metrics"}
			}
			entries = append(entries, SpiffeEntry{Policy: fmt.Sprintf("ns/p%d", r.Intn(3)), Path: fmt.Sprint(i), List: lists[r.Intn(3)], Match: m})
		}
		res, err := CompileMatchers(entries, "")
		if err != nil {
			t.Fatal(err)
		}
		for c := 0; c < 20; c++ {
			id := ids[r.Intn(len(ids))]
			sni := snis[r.Intn(len(snis))]
			method := []string{"GET", "POST"}[r.Intn(2)]
			path := []string{"/", "/metrics"}[r.Intn(2)]
			req := request{sans: []string{id}, sni: sni, headers: map[string]string{":method": method, ":path": path}}
			l4, _ := evalMatcher(t, res.Config.GetMatcher(), req)
			l4s, _ := evalMatcher(t, res.Config.GetShadowMatcher(), req)
			want, wantShadow := seed001Decide(entries, id, sni, method, path, false), seed001Decide(entries, id, sni, method, path, true)
			if res.HTTP == nil {
				if (l4 == rbacv3.RBAC_ALLOW) != want || (l4s == rbacv3.RBAC_ALLOW) != wantShadow {
					t.Fatalf("set %d %s: network %v/%v, want allow %v/%v\n%+v", s, id, l4, l4s, want, wantShadow, entries)
				}
				continue
			}
			l7, _ := evalMatcher(t, res.HTTP.GetMatcher(), req)
			l7s, _ := evalMatcher(t, res.HTTP.GetShadowMatcher(), req)
			if (l7 == rbacv3.RBAC_ALLOW) != want || (l7s == rbacv3.RBAC_ALLOW) != wantShadow {
				t.Fatalf("set %d %s %s %s: http %v/%v, want allow %v/%v\n%+v", s, id, method, path, l7, l7s, want, wantShadow, entries)
			}
			if (want && l4 != rbacv3.RBAC_ALLOW) || (wantShadow && l4s != rbacv3.RBAC_ALLOW) {
				t.Fatalf("set %d %s %s %s: network filter denies what HTTP allows\n%+v", s, id, method, path, entries)
			}
		}
	}
}

// TestDeadMatchersNeverDecide checks MG201 for matcher groups on random sets with
// spiffeID, sni and empty matchers: removing every matcher the analysis reports as
// dead changes no decision of the enforced trees, network or HTTP.
func TestDeadMatchersNeverDecide(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	ids := []string{"spiffe://td/ns/a/sa/x", "spiffe://td/ns/a/sa/y", "spiffe://td/ns/b/sa/x"}
	prefixes := []string{"spiffe://td", "spiffe://td/ns/a", "spiffe://td/ns/b"}
	snis := []string{"a.svc", "b.svc"}
	lists := []string{ListDeny, ListAllowWithShadowDeny, ListAllow}
	target := Target{Kind: api.RefMesh, Mesh: "default"}
	checked := 0
	for s := 0; s < 1500; s++ {
		var entries []SpiffeEntry
		for i, n := 0, 1+r.Intn(6); i < n; i++ {
			m := api.SpiffeMatch{}
			switch r.Intn(4) {
			case 0:
				m.SpiffeID = &api.StringMatch{Type: "Exact", Value: ids[r.Intn(len(ids))]}
			case 1, 2:
				m.SpiffeID = &api.StringMatch{Type: "Prefix", Value: prefixes[r.Intn(len(prefixes))]}
			}
			if r.Intn(2) == 0 {
				m.SNI = &api.StringMatch{Type: "Exact", Value: snis[r.Intn(len(snis))]}
			}
			if r.Intn(6) == 0 {
				m.Method = "GET"
			}
			entries = append(entries, SpiffeEntry{Policy: fmt.Sprintf("ns/p%d", r.Intn(2)), Path: fmt.Sprint(i), List: lists[r.Intn(3)], Match: m})
		}
		dead := map[string]bool{}
		for _, f := range matcherFindings(target, entries, func(string) bool { return true }, true, func() (string, string) { return "p", "p" }) {
			if f.Origin == CodeDeadItem {
				dead[f.Field] = true
			}
		}
		if len(dead) == 0 {
			continue
		}
		checked++
		var alive []SpiffeEntry
		for _, e := range entries {
			if !dead[e.Path] {
				alive = append(alive, e)
			}
		}
		all, err := CompileMatchers(entries, "")
		if err != nil {
			t.Fatal(err)
		}
		kept, err := CompileMatchers(alive, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range append(ids, "spiffe://other/ns/a/sa/x") {
			for _, sni := range append(snis, "") {
				for _, method := range []string{"GET", "POST"} {
					req := request{sans: []string{id}, sni: sni, headers: map[string]string{":method": method, ":path": "/"}}
					a, _ := evalMatcher(t, all.Config.GetMatcher(), req)
					k, _ := evalMatcher(t, kept.Config.GetMatcher(), req)
					if a != k {
						t.Fatalf("set %d %s %s: network %v with the dead matchers %v, %v without\n%+v", s, id, sni, a, dead, k, entries)
					}
					if all.HTTP != nil && kept.HTTP != nil {
						a, _ = evalMatcher(t, all.HTTP.GetMatcher(), req)
						k, _ = evalMatcher(t, kept.HTTP.GetMatcher(), req)
						if a != k {
							t.Fatalf("set %d %s %s %s: http %v with the dead matchers %v, %v without\n%+v", s, id, sni, method, a, dead, k, entries)
						}
					}
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d sets had dead matchers", checked)
	}
}
