package kumaauthz

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
)

// The small domains random policies and clients are drawn from: small enough that
// items overlap often, with every action spelling.
func propKeys() []string   { return []string{api.ServiceTag, "env", "kuma.io/zone", "version"} }
func propValues() []string { return []string{"a", "b", "c"} }
func propMeshes() []string { return []string{"default", "other"} }
func propActions() []string {
	return []string{"ALLOW", "DENY", "ALLOW_WITH_SHADOW_DENY", "DENY_WITH_SHADOW_ALLOW", "Allow", "Deny", "AllowWithShadowDeny"}
}

// randomRef draws a from targetRef of any kind, sometimes from another mesh.
func randomRef(r *rand.Rand) api.TargetRef {
	tags := func(n int) map[string]string {
		m := map[string]string{}
		for i := 0; i < n; i++ {
			m[propKeys()[1+r.Intn(len(propKeys())-1)]] = propValues()[r.Intn(len(propValues()))]
		}
		return m
	}
	var ref api.TargetRef
	switch r.Intn(4) {
	case 0:
		ref = api.TargetRef{Kind: api.RefMesh}
	case 1:
		ref = api.TargetRef{Kind: api.RefMeshSubset, Tags: tags(1 + r.Intn(2))}
		if r.Intn(4) == 0 {
			ref.Tags[api.ServiceTag] = propValues()[r.Intn(len(propValues()))]
		}
	case 2:
		ref = api.TargetRef{Kind: api.RefMeshService, Name: propValues()[r.Intn(len(propValues()))]}
	default:
		ref = api.TargetRef{Kind: api.RefMeshServiceSubset, Name: propValues()[r.Intn(len(propValues()))], Tags: tags(1)}
	}
	if r.Intn(6) == 0 {
		ref.Mesh = propMeshes()[r.Intn(len(propMeshes()))]
	}
	return ref
}

// randomClient draws a caller; values outside the policies' ones ("z") and a third
// mesh make sure the "nobody mentioned this" groups are exercised.
func randomClient(r *rand.Rand) client {
	meshes := append(append([]string{}, propMeshes()...), "third")
	c := client{mesh: meshes[r.Intn(len(meshes))], tags: map[string]string{}}
	vals := append(append([]string{}, propValues()...), "z")
	c.tags[api.ServiceTag] = vals[r.Intn(len(vals))]
	for _, k := range propKeys()[1:] {
		if r.Intn(3) > 0 {
			c.tags[k] = vals[r.Intn(len(vals))]
		}
	}
	return c
}

// TestCompiledFormsMatchListEvaluator checks, on thousands of random merged lists
// and clients, that the Envoy principals of both forms (walked by an independent
// evaluator) decide exactly what the last-matching-item rule decides, for the
// enforced rules and for the shadow rules.
func TestCompiledFormsMatchListEvaluator(t *testing.T) {
	r := rand.New(rand.NewSource(20240601))
	const sets, clients = 3000, 40
	fallbacks := 0
	for s := 0; s < sets; s++ {
		list := make([]MergedItem, r.Intn(9))
		for i := range list {
			list[i] = item(fmt.Sprintf("ns/p%d", i/3), i%3, randomRef(r), propActions()[r.Intn(len(propActions()))])
		}
		for _, form := range []Form{FormCompact, FormExpanded} {
			opts := Options{Form: form}
			if form == FormExpanded && s%10 == 0 {
				opts.MaxExpandedRules = 8 // exercise the fallback too
			}
			res, err := CompileFrom("default", list, opts)
			if err != nil {
				t.Fatalf("set %d %s: %v", s, form, err)
			}
			if res.Form != form {
				fallbacks++
			}
			for c := 0; c < clients; c++ {
				cl := randomClient(r)
				want := evalList(t, list, cl, "default")
				sans := cl.sans()
				got := verdict{allow: evalRBAC(t, res.Config.GetRules(), sans)}
				got.shadowAllow = got.allow
				if res.Config.GetShadowRules() != nil {
					got.shadowAllow = evalRBAC(t, res.Config.GetShadowRules(), sans)
				}
				if got != want {
					t.Fatalf("set %d form %s client %v: got %+v, want %+v\nlist:\n%s", s, res.Form, cl, got, want, listString(list))
				}
			}
		}
	}
	if fallbacks == 0 {
		t.Error("the expansion bound was never hit; the fallback is untested")
	}
}

// TestRuleViewPartitionsClients checks the MeshTrafficPermission MADR's claim that every client belongs
// to exactly one combination of the rule view, and that the combination's action
// is the one the list decides.
func TestRuleViewPartitionsClients(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for s := 0; s < 500; s++ {
		list := make([]MergedItem, 1+r.Intn(6))
		for i := range list {
			list[i] = item("ns/p", i, randomRef(r), propActions()[r.Intn(len(propActions()))])
		}
		cs, err := toItems(list, "default")
		if err != nil {
			t.Fatal(err)
		}
		view, _, ok := expand(cs, 1<<20, true)
		if !ok {
			t.Fatal("unexpected bound")
		}
		b := newPrincipals(0)
		for c := 0; c < 30; c++ {
			cl := randomClient(r)
			want := evalList(t, list, cl, "default")
			hits := 0
			for _, rule := range view {
				allow, shadow := viewPrincipals([]ViewRule{{conds: rule.conds, Matched: true, Action: Allow}}, b)
				_ = shadow
				if !evalPrincipal(t, allow[0], cl.sans()) {
					continue
				}
				hits++
				got := verdict{}
				if rule.Matched {
					got = verdict{allow: rule.Action.Allows(), shadowAllow: rule.Action.ShadowAllows()}
				}
				if got != want {
					t.Fatalf("client %v in rule %v: got %+v want %+v\n%s", cl, renderConds(rule.conds, "default"), got, want, listString(list))
				}
			}
			if hits != 1 {
				t.Fatalf("client %v is in %d combinations, want exactly 1\n%s", cl, hits, listString(list))
			}
		}
	}
}

func listString(list []MergedItem) string {
	var b strings.Builder
	for _, it := range list {
		fmt.Fprintf(&b, "  %s %+v\n", it.From.Default.Action, *it.From.TargetRef)
	}
	return b.String()
}
