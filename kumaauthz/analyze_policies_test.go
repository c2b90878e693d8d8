package kumaauthz

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// refAnalyzePolicies is AnalyzePolicies written plainly: every group's merged list,
// analysed on its own (what AnalyzePolicies did before its layers).
func refAnalyzePolicies(ps []Policy, systemNamespace string) field.ErrorList {
	var gs []groupFindings
	for _, g := range GroupPolicies(ps, systemNamespace) {
		gs = append(gs, groupFindings{t: g.Target, errs: Analyze(g, systemNamespace), allows: anyAllows(g.Policies)})
	}
	return baselines(gs) // the baseline rule on each group's own findings
}

// randomTarget draws a top-level targetRef of any kind, empty selectors included.
func randomTarget(r *rand.Rand) *api.TargetRef {
	v := func() string { return propValues()[r.Intn(2)] }
	switch r.Intn(11) {
	case 0:
		return nil
	case 1, 2:
		return &api.TargetRef{Kind: api.RefMesh}
	case 3:
		t := &api.TargetRef{Kind: api.RefMeshSubset, Tags: map[string]string{}}
		for k := r.Intn(3); k > 0; k-- {
			t.Tags[[]string{"env", "app"}[r.Intn(2)]] = v()
		}
		return t
	case 4:
		return &api.TargetRef{Kind: api.RefMeshService, Name: v()}
	case 5:
		return &api.TargetRef{Kind: api.RefMeshServiceSubset, Name: v(), Tags: map[string]string{"env": v()}}
	case 6, 7:
		t := &api.TargetRef{Kind: api.RefDataplane}
		if r.Intn(3) > 0 {
			t.Labels = map[string]string{"app": v()}
			if r.Intn(3) == 0 {
				t.Labels["env"] = v()
			}
		}
		if r.Intn(4) == 0 {
			t.Name = "dp-" + v()
			if r.Intn(2) == 0 {
				t.SectionName = "http"
			}
		}
		if r.Intn(5) == 0 {
			t.Namespace = "ns1"
		}
		return t
	case 8:
		return &api.TargetRef{Kind: api.RefMeshHTTPRoute, Name: "route-" + v()}
	case 9:
		return &api.TargetRef{Kind: api.RefMeshGateway, Name: "gw"}
	}
	return &api.TargetRef{Kind: api.RefMeshSubset, Tags: map[string]string{"app": v(), "env": v()}}
}

// randomFrom draws a `from` item; a few have many tags or a tag key that collides
// with the service dimension, so the scanning paths run too.
func randomFrom(r *rand.Rand) api.MTPFrom {
	ref := randomRef(r)
	switch r.Intn(40) {
	case 0:
		ref = api.TargetRef{Kind: api.RefMeshSubset, Tags: map[string]string{}}
		for k := 0; k < 11; k++ {
			ref.Tags[fmt.Sprintf("k%d", k)] = propValues()[r.Intn(2)]
		}
	case 1:
		ref = api.TargetRef{Kind: api.RefMeshSubset, Tags: map[string]string{"\x00svc": "a", api.ServiceTag: "a"}}
	}
	return api.MTPFrom{TargetRef: &ref, Default: api.MTPConf{Action: propActions()[r.Intn(len(propActions()))]}}
}

// randomMatches draws matcher lists: exact and prefix IDs that cover each other,
// sni values, matchers without any condition, and some with HTTP conditions.
func randomMatches(r *rand.Rand) *api.MTPMatches {
	list := func() *[]api.SpiffeMatch {
		if r.Intn(3) == 0 {
			return nil
		}
		var l []api.SpiffeMatch
		for k := r.Intn(3); k > 0; k-- {
			var m api.SpiffeMatch
			switch r.Intn(4) {
			case 0:
			case 1:
				m.SpiffeId = &api.StringMatch{Type: "Prefix", Value: "spiffe://td/ns/" + propValues()[r.Intn(2)]}
			default:
				m.SpiffeID = &api.StringMatch{Type: "Exact", Value: "spiffe://td/ns/" + propValues()[r.Intn(2)] + "/sa/x"}
			}
			if r.Intn(3) == 0 {
				m.SNI = &api.StringMatch{Type: "Exact", Value: []string{"a.svc", "b.svc"}[r.Intn(2)]}
			}
			if r.Intn(5) == 0 {
				m.Method = "GET"
			}
			l = append(l, m)
		}
		return &l
	}
	return &api.MTPMatches{Deny: list(), AllowWithShadowDeny: list(), Allow: list()}
}

// randomAnalysisPolicies draws n policies that share proxies in every way grouping
// knows: mesh-wide and namespace-wide layers, zones, selectors that contain each
// other, routes, gateways, repeated Refs, SPIFFE-matcher policies, and rarely an
// action that does not parse.
func randomAnalysisPolicies(r *rand.Rand, n int) []Policy {
	namespaces := []string{"", "kuma-system", "kuma-system", "ns1", "ns1", "ns2"}
	var ps []Policy
	for i := 0; i < n; i++ {
		p := Policy{Name: fmt.Sprintf("p%d", r.Intn(2*n)), Namespace: namespaces[r.Intn(len(namespaces))], Mesh: propMeshes()[r.Intn(4)/3]}
		p.Spec.TargetRef = randomTarget(r)
		switch r.Intn(6) {
		case 0:
			p.Role = api.RoleProducer
		case 1:
			p.Role = api.RoleConsumer
		}
		if r.Intn(4) == 0 {
			p.Origin = []string{api.OriginGlobal, api.OriginZone}[r.Intn(2)]
			p.Zone = []string{"z1", "z2"}[r.Intn(2)]
		}
		if r.Intn(15) == 0 {
			p.Spec.Default = randomMatches(r)
			if r.Intn(3) == 0 {
				p.Spec.Rules = []api.MTPRule{{Default: *randomMatches(r)}}
			}
		}
		for k := r.Intn(5); k > 0; k-- {
			p.Spec.From = append(p.Spec.From, randomFrom(r))
		}
		if r.Intn(200) == 0 && len(p.Spec.From) > 0 {
			p.Spec.From[0].Default.Action = "Maybe"
		}
		ps = append(ps, p)
	}
	return ps
}

// TestAnalyzePoliciesMatchesPlain checks the layered analysis against every group
// analysed on its own: the same findings, in the same order, on random sets from a
// handful to a few hundred policies.
func TestAnalyzePoliciesMatchesPlain(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	found := map[string]int{}
	for iter := 0; iter < 1500; iter++ {
		n := 1 + r.Intn(12)
		if iter%50 == 0 {
			n = 200 + r.Intn(200)
		}
		ps := randomAnalysisPolicies(r, n)
		want := refAnalyzePolicies(ps, "kuma-system")
		got := AnalyzePolicies(ps, "kuma-system")
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("iter %d (%d policies) (-want +got):\n%s", iter, n, d)
		}
		for _, e := range got {
			found[e.Origin]++
			if e.Field == "spec" || strings.HasPrefix(e.Field, "spec.default") || strings.HasPrefix(e.Field, "spec.rules") {
				found["matcher"]++
			}
		}
	}
	// The comparison means something only if every finding occurred.
	for _, c := range []string{CodeDeadItem, CodeDenyAll, CodeAllowAll, "matcher"} {
		if found[c] < 20 {
			t.Errorf("only %d %s findings in the random sets", found[c], c)
		}
	}
}
