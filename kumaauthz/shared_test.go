package kumaauthz

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
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
			// Analyze of every group, with the baseline rule across the groups.
			fs := make([]groupFindings, len(gs))
			for i, g := range gs {
				fs[i] = groupFindings{t: g.Target, errs: Analyze(g, opts.SystemNamespace), allows: anyAllows(g.Policies)}
			}
			for i, g := range gs {
				pv := pvs[i]
				analyzed := baseline(fs, i)
				if d := cmp.Diff(analyzed.ToAggregate(), pv.Findings.ToAggregate()); d != "" {
					t.Fatalf("iter %d group %s findings (-Analyze +preview):\n%s", iter, g.Target.Scope(), d)
				}
				if len(analyzed) != len(pv.Findings) {
					t.Fatalf("iter %d: finding count differs", iter)
				}
				for k, f := range analyzed {
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

// refSelector is what a target requires of a proxy: its tags (service included)
// and, for Dataplane by name, the name; the map Applies compared before
// selectorContains.
func refSelector(t Target) map[string]string {
	ref := api.TargetRef{Kind: t.Kind, Name: t.Name, Tags: t.Tags}
	sel := ref.TagView()
	if t.Kind == api.RefDataplane {
		for k, v := range t.Tags {
			sel[k] = v
		}
		if t.Name != "" {
			sel["\x00dataplane"] = t.Name
		}
		if t.SectionName != "" {
			sel["\x00section"] = t.SectionName
		}
	}
	return sel
}

// refApplies is Applies as it was written with selector maps.
func refApplies(pt, g Target) bool {
	if pt.Mesh != g.Mesh || pt.Route() != g.Route() {
		return false
	}
	if pt.Route() || !selectsProxies(pt.Kind) {
		return pt.key() == g.key()
	}
	if pt.Namespace != "" && pt.Namespace != g.Namespace {
		return false
	}
	if pt.Zone != "" && pt.Zone != g.Zone {
		return false
	}
	if !selectsProxies(g.Kind) {
		return pt.Kind == api.RefMesh || pt.Kind == ""
	}
	gSel, ptSel := refSelector(g), refSelector(pt)
	for k, v := range ptSel {
		if w, ok := gSel[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestAppliesMatchesSelectorMaps checks Applies, which no longer builds selector
// maps, against the map-based version on random targets of every kind, including
// tags that collide with the service tag and the Dataplane name entries.
func TestAppliesMatchesSelectorMaps(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	kinds := []api.RefKind{"", api.RefMesh, api.RefMeshSubset, api.RefMeshService, api.RefMeshServiceSubset, api.RefDataplane, api.RefMeshHTTPRoute, "MeshGateway"}
	keys := []string{api.ServiceTag, "env", "app", "\x00dataplane", "\x00section"}
	vals := []string{"", "a", "b"}
	pick := func(l []string) string { return l[r.Intn(len(l))] }
	random := func() Target {
		t := Target{Kind: kinds[r.Intn(len(kinds))], Name: pick(vals), SectionName: pick(vals), Mesh: "m"}
		if r.Intn(4) == 0 {
			t.Namespace = "ns"
		}
		if r.Intn(6) == 0 {
			t.Zone = "z"
		}
		if n := r.Intn(3); n > 0 {
			t.Tags = map[string]string{}
			for ; n > 0; n-- {
				t.Tags[pick(keys)] = pick(vals)
			}
		}
		return t
	}
	hits := 0
	for i := 0; i < 200000; i++ {
		pt, g := random(), random()
		want := refApplies(pt, g)
		if got := Applies(pt, g); got != want {
			t.Fatalf("Applies(%+v, %+v) = %v, want %v", pt, g, got, want)
		}
		if want {
			hits++
		}
	}
	if hits < 1000 {
		t.Fatalf("only %d pairs apply; the test draws too few related targets", hits)
	}
}

// refTagString is tagString as it was written with sort and Join.
func refTagString(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, ",")
}

// refClientWords is clientWords as it was written with TagView.
func refClientWords(ref *api.TargetRef, localMesh string) string {
	if ref == nil {
		return "?"
	}
	s := "all clients"
	if tags := ref.TagView(); len(tags) > 0 {
		s = refTagString(tags)
	}
	if ref.Mesh != "" && ref.Mesh != localMesh {
		s += " of mesh " + ref.Mesh
	}
	return s
}

// TestTagStringAndClientWords checks the map-free renderings against the originals.
func TestTagStringAndClientWords(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	keys := []string{api.ServiceTag, "env", "app", "a=b", "", "z", "é", "version", "k1", "k2", "k3", "k4", "k5"}
	kinds := []api.RefKind{api.RefMesh, api.RefMeshSubset, api.RefMeshService, api.RefMeshServiceSubset, "", api.RefDataplane}
	for i := 0; i < 20000; i++ {
		var m map[string]string
		if n := r.Intn(12); n > 0 {
			m = map[string]string{}
			for ; n > 0; n-- {
				m[keys[r.Intn(len(keys))]] = keys[r.Intn(len(keys))]
			}
		}
		if got, want := tagString(m), refTagString(m); got != want {
			t.Fatalf("tagString(%v) = %q, want %q", m, got, want)
		}
		ref := &api.TargetRef{Kind: kinds[r.Intn(len(kinds))], Name: keys[r.Intn(3)], Tags: m, Mesh: []string{"", "default", "other"}[r.Intn(3)]}
		if got, want := clientWords(ref, "default"), refClientWords(ref, "default"); got != want {
			t.Fatalf("clientWords(%+v) = %q, want %q", ref, got, want)
		}
	}
	if got := clientWords(nil, "default"); got != "?" {
		t.Fatalf("clientWords(nil) = %q", got)
	}
}

// refGroupPolicies is GroupPolicies written plainly: every distinct target, the
// policies that apply to it in input order, sorted by SortPolicies.
func refGroupPolicies(ps []Policy, systemNamespace string) []Group {
	seen := map[string]bool{}
	var targets []Target
	for _, p := range ps {
		if t := TargetOf(p, systemNamespace); !seen[t.key()] {
			seen[t.key()] = true
			targets = append(targets, t)
		}
	}
	var out []Group
	for _, t := range targets {
		g := Group{Target: t}
		for _, p := range ps {
			if Applies(TargetOf(p, systemNamespace), t) {
				g.Policies = append(g.Policies, p)
			}
		}
		SortPolicies(g.Policies, systemNamespace)
		out = append(out, g)
	}
	return out
}

// TestGroupPoliciesMatchesPlain checks GroupPolicies' members and their order, and
// the Refs and own-target flags groupPolicies derives, against the plain version.
func TestGroupPoliciesMatchesPlain(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	for iter := 0; iter < 500; iter++ {
		ps := randomTopPolicies(r, 1+r.Intn(10))
		for i := range ps {
			if r.Intn(4) == 0 {
				ps[i].Origin = []string{api.OriginGlobal, api.OriginZone}[r.Intn(2)]
				ps[i].Zone = "z"
			}
		}
		got, infos := groupPolicies(ps, "kuma-system", true)
		want := refGroupPolicies(ps, "kuma-system")
		byKey := map[string]Group{}
		for _, g := range want {
			byKey[g.Target.key()] = g
		}
		if len(got) != len(want) {
			t.Fatalf("iter %d: %d groups, want %d", iter, len(got), len(want))
		}
		for gi, g := range got {
			w := byKey[g.Target.key()]
			if d := cmp.Diff(w, g); d != "" {
				t.Fatalf("iter %d group %s (-want +got):\n%s", iter, g.Target.Scope(), d)
			}
			for k, p := range g.Policies {
				if infos[gi].refs[k] != p.Ref() || infos[gi].own[k] != (TargetOf(p, "kuma-system").key() == g.Target.key()) {
					t.Fatalf("iter %d: info of %s wrong", iter, p.Ref())
				}
			}
		}
		if d := cmp.Diff(got, GroupPolicies(ps, "kuma-system")); d != "" {
			t.Fatalf("iter %d: GroupPolicies differs from groupPolicies:\n%s", iter, d)
		}
	}
}
