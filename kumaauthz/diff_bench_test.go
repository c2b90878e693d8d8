package kumaauthz

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/meshguard/meshguard/api"
)

// genPolicies draws n MeshTrafficPermissions shaped like hack/genmanifests'
// ones: 3% mesh-wide in kuma-system, 17% namespace-wide, the rest on the
// Dataplanes of one (Zipf-popular) app, each with one to four `from` items
// naming callers by service (and sometimes version).
func genPolicies(r *rand.Rand, n int) []Policy {
	nsN, apps := max(2, n/120), 40
	pickNS := func() int {
		if r.Intn(4) == 0 {
			return r.Intn(min(nsN, 3))
		}
		return r.Intn(nsN)
	}
	pickApp := func() int { return int(float64(apps) * r.Float64() * r.Float64() * r.Float64()) }
	out := make([]Policy, 0, n)
	for i := 0; i < n; i++ {
		p := Policy{Name: fmt.Sprintf("mtp-%d", i), Mesh: "default"}
		switch x := r.Intn(100); {
		case x < 3:
			p.Namespace = "kuma-system"
			p.Spec.TargetRef = &api.TargetRef{Kind: api.RefMesh}
		case x < 20:
			p.Namespace = fmt.Sprintf("team-%03d", pickNS())
			p.Spec.TargetRef = &api.TargetRef{Kind: api.RefMesh}
		default:
			p.Namespace = fmt.Sprintf("team-%03d", pickNS())
			p.Spec.TargetRef = &api.TargetRef{Kind: api.RefDataplane, Labels: map[string]string{"app": fmt.Sprintf("app-%02d", pickApp())}}
		}
		for k := 1 + r.Intn(4); k > 0; k-- {
			p.Spec.From = append(p.Spec.From, genItem(r, nsN, pickApp))
		}
		out = append(out, p)
	}
	return out
}

func genItem(r *rand.Rand, nsN int, pickApp func() int) api.MTPFrom {
	action := "Allow"
	switch y := r.Intn(20); {
	case y < 3:
		action = "Deny"
	case y < 4:
		action = "AllowWithShadowDeny"
	}
	svc := fmt.Sprintf("app-%02d_team-%03d_svc_8080", pickApp(), r.Intn(nsN))
	var ref api.TargetRef
	switch z := r.Intn(20); {
	case z < 12:
		ref = api.TargetRef{Kind: api.RefMeshSubset, Tags: map[string]string{api.ServiceTag: svc}}
	case z < 16:
		ref = api.TargetRef{Kind: api.RefMeshSubset, Tags: map[string]string{api.ServiceTag: svc, "version": fmt.Sprintf("v%d", r.Intn(3))}}
	case z < 19:
		ref = api.TargetRef{Kind: api.RefMeshService, Name: svc}
	default:
		ref = api.TargetRef{Kind: api.RefMesh}
	}
	return api.MTPFrom{TargetRef: &ref, Default: api.MTPConf{Action: action}}
}

// genChange is a review's worth of change to a set: about 1% of the policies
// get an action flipped or an item added, and one mesh-wide policy changes, so
// that every group of proxies has to be compared.
func genChange(r *rand.Rand, ps []Policy) []Policy {
	out := slices.Clone(ps)
	meshWide := false
	for i := range out {
		if out[i].Namespace == "kuma-system" && !meshWide {
			meshWide = true
		} else if r.Intn(100) != 0 {
			continue
		}
		p := out[i]
		p.Spec.From = slices.Clone(p.Spec.From)
		if r.Intn(2) == 0 {
			p.Spec.From[0].Default.Action = map[string]string{"Allow": "Deny", "Deny": "Allow", "AllowWithShadowDeny": "Allow"}[p.Spec.From[0].Default.Action]
		} else {
			p.Spec.From = append(p.Spec.From, genItem(r, 80, func() int { return r.Intn(40) }))
		}
		out[i] = p
	}
	return out
}

// benchN is the size of the benchmark's sets.
var benchN = 10000

// BenchmarkDiffPolicies10k diffs two 10,000-policy sets that differ as genChange
// says (docs/performance.md, "meshguard diff").
func BenchmarkDiffPolicies10k(b *testing.B) {
	r := rand.New(rand.NewSource(10000))
	old := genPolicies(r, benchN)
	nw := genChange(r, old)
	var groups, changes int
	start, n := cpuTime(), 0
	for b.Loop() {
		n++
		ds, err := DiffPolicies(old, nw, DiffOptions{})
		if err != nil {
			b.Fatal(err)
		}
		groups, changes = len(ds), 0
		for _, d := range ds {
			if d.Incomplete != "" {
				b.Fatalf("%s: %s", d.Scope, d.Incomplete)
			}
			changes += len(d.Changes)
		}
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(n), "cpu-ns/op")
	b.ReportMetric(float64(groups), "groups")
	b.ReportMetric(float64(changes), "changes")
}
