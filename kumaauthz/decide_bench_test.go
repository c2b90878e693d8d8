package kumaauthz

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/meshguard/meshguard/api"
)

// decideBenchPolicies are n policies shaped like hack/genmanifests' (3%
// mesh-wide, 17% namespace-wide, the rest on one app's Dataplanes, popular apps
// collecting many), each with one to four `from` items.
func decideBenchPolicies(n int) []Policy {
	r := rand.New(rand.NewSource(18))
	nss := max(2, n/500)
	app := func() string { return fmt.Sprintf("app-%02d", int(40*r.Float64()*r.Float64()*r.Float64())) }
	ns := func() string {
		if r.Intn(4) == 0 {
			return fmt.Sprintf("team-%03d", r.Intn(min(nss, 3)))
		}
		return fmt.Sprintf("team-%03d", r.Intn(nss))
	}
	actions := []string{"Allow", "Allow", "Allow", "Deny", "AllowWithShadowDeny"}
	ps := make([]Policy, n)
	for i := range ps {
		p := Policy{Name: fmt.Sprintf("mtp-%d", i), Namespace: ns(), Mesh: "default"}
		switch x := r.Intn(100); {
		case x < 3:
			p.Namespace = "kuma-system"
			p.Spec.TargetRef = &api.TargetRef{Kind: api.RefMesh}
		case x < 20:
			p.Spec.TargetRef = &api.TargetRef{Kind: api.RefMesh}
		default:
			p.Spec.TargetRef = &api.TargetRef{Kind: api.RefDataplane, Labels: map[string]string{"app": app()}}
		}
		for k := r.Intn(4); k >= 0; k-- {
			ref := api.TargetRef{Kind: api.RefMeshSubset, Tags: map[string]string{api.ServiceTag: app() + "_" + ns() + "_svc_8080"}}
			if r.Intn(20) == 0 {
				ref = api.TargetRef{Kind: api.RefMesh}
			}
			p.Spec.From = append(p.Spec.From, api.MTPFrom{TargetRef: &ref, Default: api.MTPConf{Action: actions[r.Intn(len(actions))]}})
		}
		ps[i] = p
	}
	return ps
}

// BenchmarkDecide10k is the engine's share of `meshguard check` on 10,000
// policies: selecting those of the busiest proxy, merging, compiling them to
// Envoy RBAC and evaluating it for one client (the command adds reading and
// validating the manifests: cmd/meshguard BenchmarkCheck10kPolicies).
func BenchmarkDecide10k(b *testing.B) {
	ps := decideBenchPolicies(10000)
	px := Proxy{Mesh: "default", Namespace: "team-000", Tags: map[string]string{"app": "app-00", api.ServiceTag: "app-00_team-000_svc_8080"}}
	req := Request{SANs: ClientSANs("default", map[string]string{api.ServiceTag: "app-01_team-001_svc_8080"})}
	merged := 0
	b.ReportAllocs()
	for b.Loop() {
		sel := SelectPolicies(ps, px, "")
		if _, err := Decide(sel.Policies, px.Mesh, req, Options{}); err != nil {
			b.Fatal(err)
		}
		merged = len(sel.Policies)
	}
	b.ReportMetric(float64(merged), "policies-merged")
}
