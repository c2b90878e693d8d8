package kumaauthz

import (
	"fmt"
	"math/rand"
	"syscall"
	"testing"

	"github.com/meshguard/meshguard/api"
)

// benchPolicies is the shape Kuma uses for its own rule-building benchmark: n
// policies targeting the whole mesh, each with one MeshSubset `from` item allowing
// one caller identified by 1 tag (kuma.io/service: caller-i) or 2 tags (plus
// version: v(i mod 3)), optionally after a mesh-wide DENY policy.
func benchPolicies(n, tags int, denyFirst bool) []Policy {
	var ps []Policy
	if denyFirst {
		ps = append(ps, Policy{Name: "zzz-deny-all", Namespace: "kuma-system", Mesh: "default", Spec: api.MeshTrafficPermissionSpec{
			TargetRef: &api.TargetRef{Kind: api.RefMesh},
			From:      []api.MTPFrom{{TargetRef: &api.TargetRef{Kind: api.RefMesh}, Default: api.MTPConf{Action: "Deny"}}},
		}})
	}
	for i := 0; i < n; i++ {
		t := map[string]string{api.ServiceTag: fmt.Sprintf("caller-%d", i)}
		if tags == 2 {
			t["version"] = fmt.Sprintf("v%d", i%3)
		}
		ps = append(ps, Policy{Name: fmt.Sprintf("mtp-%03d", i), Namespace: "kuma-system", Mesh: "default", Spec: api.MeshTrafficPermissionSpec{
			TargetRef: &api.TargetRef{Kind: api.RefMesh},
			From:      []api.MTPFrom{{TargetRef: &api.TargetRef{Kind: api.RefMeshSubset, Tags: t}, Default: api.MTPConf{Action: "Allow"}}},
		}})
	}
	return ps
}

// BenchmarkCompileFrom measures one proxy inbound: sorting the policies, merging
// their `from` lists and building the validated network RBAC config.
func BenchmarkCompileFrom(b *testing.B) {
	for _, form := range []Form{FormCompact, FormExpanded} {
		for _, deny := range []bool{false, true} {
			for _, tags := range []int{1, 2} {
				for _, n := range []int{50, 200, 500} {
					name := fmt.Sprintf("%s/deny=%v/tags=%d/n=%d", form, deny, tags, n)
					ps := benchPolicies(n, tags, deny)
					b.Run(name, func(b *testing.B) {
						b.ReportAllocs()
						var res FromResult
						start := cpuTime()
						for i := 0; i < b.N; i++ {
							sorted := append([]Policy(nil), ps...)
							SortPolicies(sorted, "kuma-system")
							var err error
							res, err = CompileFrom("default", MergeFrom(sorted), Options{Form: form})
							if err != nil {
								b.Fatal(err)
							}
						}
						b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
						if res.Form != form {
							b.Logf("%s fell back to %s: %v", name, res.Form, res.Warnings)
						}
					})
				}
			}
		}
	}
}

// cpuTime is the process's user+system CPU time in ns. The benchmark reports it
// per op next to wall time because the shared build machine is often loaded far
// beyond its cores, which inflates ns/op but not the CPU the compiler burns.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// TestBenchShapesAreCorrect checks the benchmark configurations against the list
// evaluator, so the numbers are for output that is right.
func TestBenchShapesAreCorrect(t *testing.T) {
	for _, deny := range []bool{false, true} {
		for _, tags := range []int{1, 2} {
			ps := benchPolicies(50, tags, deny)
			SortPolicies(ps, "kuma-system")
			list := MergeFrom(ps)
			for _, form := range []Form{FormCompact, FormExpanded} {
				res, err := CompileFrom("default", list, Options{Form: form})
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < 60; i++ {
					c := client{mesh: "default", tags: map[string]string{api.ServiceTag: fmt.Sprintf("caller-%d", i), "version": fmt.Sprintf("v%d", i%4)}}
					want := evalList(t, list, c, "default")
					if got := evalRBAC(t, res.Config.GetRules(), c.sans()); got != want.allow {
						t.Fatalf("deny=%v tags=%d %s %v: got %v want %v", deny, tags, form, c, got, want.allow)
					}
				}
			}
		}
	}
}

// sameProxyPolicies is the shape that made lint quadratic: n policies of which 3%
// target the whole mesh, 17% whole namespaces and the rest Dataplanes of a few
// popular apps, each with one to four `from` items, so thousands of policies
// select the same proxies and every group shares the mesh-wide ones.
func sameProxyPolicies(n int) []Policy {
	r := rand.New(rand.NewSource(int64(n)))
	nss := max(2, n/100)
	var ps []Policy
	for i := 0; i < n; i++ {
		ns := fmt.Sprintf("team-%d", r.Intn(nss))
		p := Policy{Name: fmt.Sprintf("mtp-%d", i), Namespace: ns, Mesh: "default", Spec: api.MeshTrafficPermissionSpec{TargetRef: &api.TargetRef{Kind: api.RefMesh}}}
		switch x := r.Intn(100); {
		case x < 3:
			p.Namespace = "kuma-system"
		case x < 20:
		default:
			p.Spec.TargetRef = &api.TargetRef{Kind: api.RefDataplane, Labels: map[string]string{"app": fmt.Sprintf("app-%d", int(40*r.Float64()*r.Float64()))}}
		}
		for k := 1 + r.Intn(4); k > 0; k-- {
			tags := map[string]string{api.ServiceTag: fmt.Sprintf("caller-%d", r.Intn(200))}
			if r.Intn(4) == 0 {
				tags["version"] = fmt.Sprintf("v%d", r.Intn(3))
			}
			action := []string{"Allow", "Allow", "Allow", "Deny", "AllowWithShadowDeny"}[r.Intn(5)]
			p.Spec.From = append(p.Spec.From, api.MTPFrom{TargetRef: &api.TargetRef{Kind: api.RefMeshSubset, Tags: tags}, Default: api.MTPConf{Action: action}})
		}
		ps = append(ps, p)
	}
	return ps
}

// BenchmarkAnalyzePolicies is lint's cross-document RBAC stage on many policies
// selecting the same proxies; "plain" analyses every group's merged list on its own
// (the reference the layered analysis is tested against, and what lint ran before).
func BenchmarkAnalyzePolicies(b *testing.B) {
	for _, n := range []int{1000, 5000, 25000} {
		ps := sameProxyPolicies(n)
		b.Run(fmt.Sprintf("layered/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				AnalyzePolicies(ps, "kuma-system")
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
		if n > 5000 {
			continue // the plain analysis takes minutes here
		}
		b.Run(fmt.Sprintf("plain/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				refAnalyzePolicies(ps, "kuma-system")
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
