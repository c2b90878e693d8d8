package kumarules

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/meshguard/meshguard/api"
)

// scanMatched is MatchedPolicies as the engine computed it before Index: every
// policy of the kind tested against dp, the selected ones sorted by comparing
// them, and every rule built afresh. Index must answer exactly the same.
func scanMatched(e *Engine, policyType string, dp Dataplane, objects []Policy) Matched {
	gw := selectGateway(dp, objects)
	var routes []Policy
	for _, p := range objects {
		if p.Type == refMeshHTTPRoute {
			routes = append(routes, p)
		}
	}
	var m Matched
	byInbound := map[Listener][]Policy{}
	var order []Listener
	for _, p := range objects {
		if p.Type != policyType || p.Labels["kuma.io/effect"] == "shadow" {
			continue
		}
		sel, err := selects(p.Meta, p.TopRef(), dp, gw, routes)
		if err != nil {
			m.Warnings = append(m.Warnings, fmt.Sprintf("unable to resolve TargetRef on policy: mesh:%s name:%s error:%q", p.Mesh, p.Name, err.Error()))
		}
		if !sel.any() {
			continue
		}
		m.Policies = append(m.Policies, p)
		for _, l := range sel.inbounds {
			if _, ok := byInbound[l]; !ok {
				order = append(order, l)
			}
			byInbound[l] = append(byInbound[l], p)
		}
	}
	sortByCompare := func(ps []Policy) {
		slices.SortStableFunc(ps, func(a, b Policy) int { return compareMatched(a.Meta, a.TopRef(), b.Meta, b.TopRef()) })
	}
	sortByCompare(m.Policies)
	m.FromRules = map[Listener]FromRules{}
	for _, l := range order {
		sortByCompare(byInbound[l])
		fr, err := e.BuildFromRules(byInbound[l])
		if err != nil {
			m.Warnings = append(m.Warnings, "couldn't create From rules: "+err.Error())
			continue
		}
		m.FromRules[l] = fr
	}
	var err error
	if m.ToRules, err = e.BuildToRules(m.Policies, objects); err != nil {
		m.Warnings = append(m.Warnings, "couldn't create To rules: "+err.Error())
	}
	if m.Single, err = e.BuildSingleItemRules(m.Policies); err != nil {
		m.Warnings = append(m.Warnings, "couldn't create top level rules: "+err.Error())
	}
	return m
}

// randomMesh is a mesh of Dataplanes and MeshServices and policies whose
// top-level refs exercise every bucket of Index and the refs no bucket holds:
// "*" values, several tags, tags that override a MeshServiceSubset's name,
// labels with empty values, names with labels, sectionName, shadow policies and
// consumer policies confined to a namespace.
func randomMesh(rng *rand.Rand) ([]Policy, []Dataplane) {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	services := []string{"a", "b", "c"}
	objects := []Policy{{Meta: Meta{Type: api.KindMesh, Name: "default"}}}
	for _, s := range services {
		objects = append(objects, Policy{Meta: Meta{Type: refMeshService, Name: s, Mesh: "default"}, Spec: map[string]any{
			"ports": []any{map[string]any{"name": "http", "port": int64(80)}}}})
	}
	var dps []Dataplane
	for i := range 12 {
		labels := map[string]string{"app": pick(services...)}
		if rng.IntN(2) == 0 {
			labels["env"] = pick("prod", "")
		}
		if rng.IntN(3) == 0 {
			labels[api.LabelNamespace] = pick("ns1", "ns2")
		}
		dp := Dataplane{Meta: Meta{Type: api.KindDataplane, Name: fmt.Sprintf("dp-%d", i), Mesh: "default", Labels: labels},
			Namespace: labels[api.LabelNamespace], Address: fmt.Sprintf("10.0.0.%d", i)}
		for j := range 1 + rng.IntN(2) {
			tags := map[string]string{serviceTag: pick(services...)}
			if rng.IntN(2) == 0 {
				tags["team"] = pick("x", "y", "")
			}
			dp.Inbounds = append(dp.Inbounds, Inbound{Name: fmt.Sprintf("p%d", j), Address: dp.Address, Port: 8080 + j, Tags: tags})
		}
		dps = append(dps, dp)
	}
	refs := func() map[string]any {
		switch rng.IntN(9) {
		case 0:
			return map[string]any{"kind": "Mesh"}
		case 1:
			tags := map[string]any{"team": pick("x", "y", "*", "")}
			if rng.IntN(2) == 0 {
				tags[serviceTag] = pick("a", "*")
			}
			return map[string]any{"kind": "MeshSubset", "tags": tags}
		case 2:
			return map[string]any{"kind": "MeshService", "name": pick("a", "b", "*")}
		case 3:
			ref := map[string]any{"kind": "MeshServiceSubset", "name": pick("a", "b"), "tags": map[string]any{"team": "x"}}
			if rng.IntN(2) == 0 {
				ref["tags"] = map[string]any{serviceTag: "c"}
			}
			return ref
		case 4:
			ref := map[string]any{"kind": "Dataplane", "name": fmt.Sprintf("dp-%d", rng.IntN(12))}
			if rng.IntN(3) == 0 {
				ref["sectionName"] = "p1"
			}
			return ref
		case 5:
			return map[string]any{"kind": "Dataplane", "labels": map[string]any{"env": pick("prod", ""), "app": pick("a", "b")}}
		case 6:
			return map[string]any{"kind": "Dataplane", "name": "dp-1", "labels": map[string]any{"app": "a"}}
		case 7:
			return map[string]any{"kind": "Dataplane"}
		}
		if rng.IntN(2) == 0 {
			return map[string]any{"kind": "Dataplane", "labels": map[string]any{"missing": ""}}
		}
		return map[string]any{"kind": "Dataplane", "labels": map[string]any{}}
	}
	for i := range 40 {
		kind := pick(api.KindMeshTimeout, api.KindMeshTrafficPermission)
		labels := map[string]string{}
		switch rng.IntN(6) {
		case 0:
			labels["kuma.io/effect"] = "shadow"
		case 1:
			labels[api.LabelPolicyRole], labels[api.LabelNamespace] = string(api.RoleConsumer), pick("ns1", "ns2")
		}
		spec := map[string]any{"targetRef": refs()}
		item := func(ref map[string]any, conf map[string]any) []any {
			return []any{map[string]any{"targetRef": ref, "default": conf}}
		}
		if kind == api.KindMeshTimeout {
			spec["to"] = append(item(map[string]any{"kind": "Mesh"}, map[string]any{"idleTimeout": fmt.Sprintf("%ds", i)}),
				item(map[string]any{"kind": "MeshService", "name": pick(services...)}, map[string]any{"http": map[string]any{"requestTimeout": fmt.Sprintf("%ds", i)}})...)
		}
		spec["from"] = item(map[string]any{"kind": pick("Mesh", "MeshService"), "name": pick(services...)}, map[string]any{"action": pick("Allow", "Deny")})
		if kind == api.KindMeshTimeout {
			spec["from"] = item(map[string]any{"kind": "Mesh"}, map[string]any{"idleTimeout": fmt.Sprintf("%ds", i)})
		}
		objects = append(objects, Policy{Meta: Meta{Type: kind, Name: fmt.Sprintf("p-%d", i%30), Mesh: "default", Labels: labels}, Spec: spec})
	}
	return objects, dps
}

// TestIndexMatchesAsScanningEveryPolicy: one Index over many proxies gives each
// the answer a scan of every policy with every rule built afresh gives it
// (buckets, ranks and the rules shared per set of policies change nothing), and
// SkipLegacyTo leaves out only the legacy to rules.
func TestIndexMatchesAsScanningEveryPolicy(t *testing.T) {
	e := New(api.DefaultRegistry())
	rng := rand.New(rand.NewPCG(29, 5000))
	for round := range 30 {
		objects, dps := randomMesh(rng)
		x := e.NewIndex(objects)
		for _, dp := range dps {
			for _, kind := range []string{api.KindMeshTimeout, api.KindMeshTrafficPermission, api.KindMeshTrace} {
				want := scanMatched(e, kind, dp, objects)
				got, err := x.MatchedPolicies(kind, dp, MatchOptions{})
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("round %d, %s, %s: Index gives\n%+v\nscanning gives\n%+v\n(%v)", round, dp.Name, kind, got, want, err)
				}
				skip, _ := x.MatchedPolicies(kind, dp, MatchOptions{SkipLegacyTo: true})
				if len(skip.ToRules.Rules) != 0 || !reflect.DeepEqual(skip.ToRules.ResourceRules, want.ToRules.ResourceRules) ||
					!reflect.DeepEqual(skip.FromRules, want.FromRules) || !reflect.DeepEqual(skip.Policies, want.Policies) {
					t.Fatalf("round %d, %s, %s: SkipLegacyTo changes more than the legacy to rules:\n%+v\nwant\n%+v", round, dp.Name, kind, skip, want)
				}
			}
		}
	}
}

// TestIndexBuildsASetsRulesOnce: proxies the same policies select share one
// computation of their rules; a proxy with another set gets its own.
func TestIndexBuildsASetsRulesOnce(t *testing.T) {
	e := New(api.DefaultRegistry())
	objects := []Policy{
		{Meta: Meta{Type: api.KindMesh, Name: "default"}},
		{Meta: Meta{Type: api.KindMeshTimeout, Name: "all", Mesh: "default"}, Spec: map[string]any{
			"to": []any{map[string]any{"targetRef": map[string]any{"kind": "Mesh"}, "default": map[string]any{"idleTimeout": "1s"}}}}},
		{Meta: Meta{Type: api.KindMeshTimeout, Name: "b", Mesh: "default"}, Spec: map[string]any{
			"targetRef": map[string]any{"kind": "MeshService", "name": "b"},
			"to":        []any{map[string]any{"targetRef": map[string]any{"kind": "Mesh"}, "default": map[string]any{"idleTimeout": "2s"}}}}},
	}
	x := e.NewIndex(objects)
	dp := func(name, svc string) Dataplane {
		return Dataplane{Meta: Meta{Type: api.KindDataplane, Name: name, Mesh: "default"}, Address: "10.0.0.1",
			Inbounds: []Inbound{{Address: "10.0.0.1", Port: 80, Tags: map[string]string{serviceTag: svc}}}}
	}
	for _, d := range []Dataplane{dp("a-1", "a"), dp("a-2", "a"), dp("a-3", "a")} {
		if _, err := x.MatchedPolicies(api.KindMeshTimeout, d, MatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if len(x.toMemo) != 1 {
		t.Fatalf("three proxies selected by the same policy: %d computations of their rules, want 1", len(x.toMemo))
	}
	m, _ := x.MatchedPolicies(api.KindMeshTimeout, dp("b-1", "b"), MatchOptions{})
	if len(x.toMemo) != 2 || len(m.Policies) != 2 {
		t.Fatalf("a proxy of b: %d policies, %d computations; want 2 and 2", len(m.Policies), len(x.toMemo))
	}
}
