package kumaauthz

import (
	"cmp"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
)

// randomIndexTarget draws a target of any kind, in two meshes, three namespaces
// and two zones, with tags that collide with the service tag and the Dataplane
// name entries: the cases where the index keys and Applies could disagree.
func randomIndexTarget(r *rand.Rand) Target {
	kinds := []api.RefKind{"", api.RefMesh, api.RefMeshSubset, api.RefMeshService, api.RefMeshServiceSubset,
		api.RefDataplane, api.RefMeshHTTPRoute, api.RefMeshGatewayRoute, "MeshGateway"}
	keys := []string{api.ServiceTag, "env", "app", selDataplane, selSection}
	vals := []string{"", "a", "b"}
	pick := func(l []string) string { return l[r.Intn(len(l))] }
	t := Target{Kind: kinds[r.Intn(len(kinds))], Name: pick(vals), SectionName: pick(vals), Mesh: pick([]string{"m", "m", "other"})}
	if r.Intn(3) == 0 {
		t.Namespace = pick([]string{"ns1", "ns2"})
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

// TestIndexKeysFindEveryPair checks the promise Related relies on, for random
// pairs of targets with Applies(pt, g): g is filed under every container key of
// pt, and pt under at least one member key of g.
func TestIndexKeysFindEveryPair(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	hits := 0
	for i := 0; i < 200000; i++ {
		pt, g := randomIndexTarget(r), randomIndexTarget(r)
		if !Applies(pt, g) {
			continue
		}
		hits++
		gKeys, ptKeys := g.IndexKeys(), pt.IndexKeys()
		for _, k := range pt.containerKeys() {
			if !slices.Contains(gKeys, k) {
				t.Fatalf("Applies(%+v, %+v), but the group is not filed under %q (its keys: %q)", pt, g, k, gKeys)
			}
		}
		found := false
		for _, k := range g.memberKeys() {
			found = found || slices.Contains(ptKeys, k)
		}
		if !found {
			t.Fatalf("Applies(%+v, %+v), but none of the member keys %q is one of the policy's %q", pt, g, g.memberKeys(), ptKeys)
		}
	}
	if hits < 2000 {
		t.Fatalf("only %d pairs apply; the test draws too few related targets", hits)
	}
}

// randomIndexPolicies draws stored policies with distinct namespace/name, of every
// target kind, with roles and zone origins that scope their targets.
func randomIndexPolicies(r *rand.Rand, n int) []Policy {
	namespaces := []string{"", api.DefaultSystemNS, "ns1", "ns2"}
	var out []Policy
	seen := map[string]bool{}
	for len(out) < n {
		t := randomIndexTarget(r)
		p := Policy{Name: fmt.Sprintf("p%d", r.Intn(3*n)), Namespace: namespaces[r.Intn(len(namespaces))], Mesh: t.Mesh}
		if seen[p.Ref()] {
			continue
		}
		seen[p.Ref()] = true
		ref := api.TargetRef{Kind: t.Kind, Name: t.Name, SectionName: t.SectionName, Namespace: t.Namespace}
		if t.Kind == api.RefDataplane {
			ref.Labels = t.Tags
		} else {
			ref.Tags = t.Tags
		}
		if ref.Kind != "" || r.Intn(2) == 0 {
			p.Spec.TargetRef = &ref
		}
		switch r.Intn(4) {
		case 0:
			p.Role = api.RoleProducer
		case 1:
			p.Origin, p.Zone = api.OriginZone, "z"
		}
		out = append(out, p)
	}
	return out
}

// scanRelated is what the webhook computed before the index: every stored policy's
// target compared with the incoming one's groups.
func scanRelated(first Policy, stored []Policy, sysNS string) []string {
	t0 := TargetOf(first, sysNS)
	var mine []Target
	if Applies(t0, t0) {
		mine = append(mine, t0)
	}
	var rest []Policy
	for _, p := range stored {
		if p.Namespace == first.Namespace && p.Name == first.Name {
			continue
		}
		rest = append(rest, p)
		if t := TargetOf(p, sysNS); Applies(t0, t) {
			mine = append(mine, t)
		}
	}
	slices.SortFunc(rest, func(a, b Policy) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	out := []string{first.Ref()}
	for _, p := range rest {
		for _, g := range mine {
			if Applies(TargetOf(p, sysNS), g) {
				out = append(out, p.Ref())
				break
			}
		}
	}
	return out
}

// TestRelatedMatchesScan checks Related, which reads only what the index keys
// find, against comparing the incoming policy with every stored one, for
// incoming policies that are new and that replace a stored one.
func TestRelatedMatchesScan(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	sysNS := api.DefaultSystemNS
	nonEmpty := 0
	for iter := 0; iter < 300; iter++ {
		stored := randomIndexPolicies(r, 1+r.Intn(40))
		index := map[string][]Stored{}
		for _, p := range stored {
			s := Stored{Policy: p, Target: TargetOf(p, sysNS)}
			for _, k := range s.Target.IndexKeys() {
				index[k] = append(index[k], s)
			}
		}
		lookups := 0
		lookup := func(key string) []Stored { lookups++; return index[key] }
		incoming := randomIndexPolicies(r, 1)
		if r.Intn(3) == 0 {
			incoming[0].Namespace, incoming[0].Name = stored[0].Namespace, stored[0].Name
		}
		for _, first := range incoming {
			var got []string
			for _, p := range Related(first, sysNS, lookup) {
				got = append(got, p.Ref())
			}
			want := scanRelated(first, stored, sysNS)
			if diff := gocmp.Diff(want, got); diff != "" {
				t.Fatalf("iter %d, %s: related policies (-scan +index):\n%s", iter, first.Ref(), diff)
			}
			if len(got) > 1 {
				nonEmpty++
			}
		}
		if lookups == 0 {
			t.Fatalf("iter %d: Related looked nothing up", iter)
		}
	}
	if nonEmpty < 100 {
		t.Fatalf("only %d incoming policies had related stored ones; the test draws too few", nonEmpty)
	}
}

// TestRelatedReadsOnlyCandidates checks that Related's work does not grow with
// stored policies that cannot share a group with the incoming one: a thousand
// policies on other apps of the same namespace are never returned by a lookup.
func TestRelatedReadsOnlyCandidates(t *testing.T) {
	sysNS := api.DefaultSystemNS
	policy := func(name, app string) Policy {
		return Policy{Name: name, Namespace: "shop", Mesh: "default", Role: api.RoleWorkloadOwner,
			Spec: api.MeshTrafficPermissionSpec{TargetRef: &api.TargetRef{Kind: api.RefDataplane, Labels: map[string]string{"app": app}}}}
	}
	mesh := Policy{Name: "mesh-wide", Namespace: sysNS, Mesh: "default", Spec: api.MeshTrafficPermissionSpec{TargetRef: &api.TargetRef{Kind: api.RefMesh}}}
	index := map[string][]Stored{}
	add := func(p Policy) {
		s := Stored{Policy: p, Target: TargetOf(p, sysNS)}
		for _, k := range s.Target.IndexKeys() {
			index[k] = append(index[k], s)
		}
	}
	add(mesh)
	add(policy("same-app", "web"))
	for i := range 1000 {
		add(policy(fmt.Sprint("other-", i), fmt.Sprint("app-", i)))
	}
	read := 0
	got := Related(policy("incoming", "web"), sysNS, func(key string) []Stored {
		read += len(index[key])
		return index[key]
	})
	var refs []string
	for _, p := range got {
		refs = append(refs, p.Ref())
	}
	if diff := gocmp.Diff([]string{"shop/incoming", "kuma-system/mesh-wide", "shop/same-app"}, refs); diff != "" {
		t.Errorf("related (-want +got):\n%s", diff)
	}
	if read > 10 {
		t.Errorf("Related read %d stored policies to find 2", read)
	}
}
