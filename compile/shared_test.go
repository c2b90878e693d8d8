package compile

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	"github.com/meshguard/meshguard/api"
)

// randomTopPolicies draws policies with top-level targets that share proxies, in a
// few namespaces, with repeated names, so that groups hold policies whose own target
// is and is not the group's, and Refs repeat.
func randomTopPolicies(r *rand.Rand, n int) []Policy {
	namespaces := []string{"", "kuma-system", "ns1", "ns2"}
	var ps []Policy
	for i := 0; i < n; i++ {
		p := Policy{Name: fmt.Sprintf("p%d", r.Intn(n)), Namespace: namespaces[r.Intn(len(namespaces))], Mesh: propMeshes()[r.Intn(2)]}
		switch r.Intn(4) {
		case 0:
		case 1:
			p.Spec.TargetRef = &api.TargetRef{Kind: api.RefMesh}
		case 2:
			p.Spec.TargetRef = &api.TargetRef{Kind: api.RefMeshService, Name: propValues()[r.Intn(2)]}
		default:
			p.Spec.TargetRef = &api.TargetRef{Kind: api.RefMeshSubset, Tags: map[string]string{"env": propValues()[r.Intn(2)]}}
		}
		if r.Intn(5) == 0 {
			p.Role = api.RoleProducer
		}
		for k := r.Intn(4); k > 0; k-- {
			ref := randomRef(r)
			p.Spec.From = append(p.Spec.From, api.MTPFrom{TargetRef: &ref, Default: api.MTPConf{Action: propActions()[r.Intn(len(propActions()))]}})
		}
		ps = append(ps, p)
	}
	return ps
}

// TestBuildPreviewsSharesDerivedState checks that BuildPreviews, which derives the
// merged list, compiled items, Refs and own targets once per group, gives what the
// exported steps give when each derives them itself.
func TestBuildPreviewsSharesDerivedState(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for iter := 0; iter < 400; iter++ {
		ps := randomTopPolicies(r, 1+r.Intn(8))
		for _, form := range []Form{FormCompact, FormExpanded} {
			opts := Options{Form: form}.withDefaults()
			pvs, err := BuildPreviews(ps, opts)
			if err != nil {
				t.Fatalf("iter %d: %v", iter, err)
			}
			gs := GroupPolicies(ps, opts.SystemNamespace)
			if len(gs) != len(pvs) {
				t.Fatalf("iter %d: %d groups, %d previews", iter, len(gs), len(pvs))
			}
			for i, g := range gs {
				pv := pvs[i]
				if d := cmp.Diff(Analyze(g, opts.SystemNamespace).ToAggregate(), pv.Findings.ToAggregate()); d != "" {
					t.Fatalf("iter %d group %s findings (-Analyze +preview):\n%s", iter, g.Target.Scope(), d)
				}
				if len(Analyze(g, opts.SystemNamespace)) != len(pv.Findings) {
					t.Fatalf("iter %d: finding count differs", iter)
				}
				for k, f := range Analyze(g, opts.SystemNamespace) {
					if *f != *pv.Findings[k] {
						t.Fatalf("iter %d: finding %d: %+v vs %+v", iter, k, f, pv.Findings[k])
					}
				}
				items := MergeFrom(g.Policies)
				res, err := CompileFrom(g.Target.Mesh, items, opts)
				if err != nil {
					t.Fatal(err)
				}
				if !proto.Equal(res.Config, pv.RBAC) || res.Form != pv.Form {
					t.Fatalf("iter %d: RBAC differs", iter)
				}
				cs, err := toItems(items, g.Target.Mesh)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := allowsAnyone(cs), len(compact(cs, Action.Allows, newItemLeaves(cs))) > 0; got != want {
					t.Fatalf("iter %d: allowsAnyone %v, compact says %v", iter, got, want)
				}
			}
		}
	}
}

// TestFromPaths checks the precomputed item paths.
func TestFromPaths(t *testing.T) {
	for _, i := range []int{0, 1, 9, 10, 63, 64, 100, -1} {
		if got, want := (MergedItem{Index: i}).Path(), fmt.Sprintf("spec.from[%d]", i); got != want {
			t.Errorf("Path(%d) = %q, want %q", i, got, want)
		}
	}
}
