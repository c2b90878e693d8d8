package kumaauthz

import (
	"github.com/meshguard/meshguard/internal/classes"

	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/config/rbac/v3"

	"github.com/meshguard/meshguard/api"
)

// The diff's property: its client classes partition the clients, and every
// class's reported old and new decisions are what the emitted Envoy RBAC of the
// old and new group (walked by eval_test.go's independent evaluators) decides
// for any client of the class. Hence a class reported unchanged is unchanged for
// all its clients, and every client whose decision changed is in a reported
// change.

// randomMatcherPolicy draws a SPIFFE-matcher policy whose IDs overlap the
// services of the tag-based generators (spiffe://default/a is service a).
func randomMatcherPolicy(r *rand.Rand, name string) Policy {
	ids := []string{"spiffe://default/a", "spiffe://default/b", "spiffe://other/a", "spiffe://td/ns/x/sa/y"}
	prefixes := []string{"spiffe://default/", "spiffe://default/a", "spiffe://other/", "spiffe://td/ns/"}
	list := func() *[]api.SpiffeMatch {
		var out []api.SpiffeMatch
		for n := r.Intn(3); n > 0; n-- {
			m := api.SpiffeMatch{}
			switch r.Intn(4) {
			case 0, 1:
				m.SpiffeID = &api.StringMatch{Type: "Exact", Value: ids[r.Intn(len(ids))]}
			case 2:
				m.SpiffeID = &api.StringMatch{Type: "Prefix", Value: prefixes[r.Intn(len(prefixes))]}
			}
			if r.Intn(4) == 0 {
				m.SNI = &api.StringMatch{Type: "Exact", Value: []string{"a.svc", "b.svc"}[r.Intn(2)]}
			}
			if r.Intn(4) == 0 {
				m.Method = []string{"GET", "POST"}[r.Intn(2)]
			}
			if r.Intn(5) == 0 {
				m.Path = &api.StringMatch{Type: "Prefix", Value: []string{"/api", "/api/v1", "/metrics"}[r.Intn(3)]}
			}
			out = append(out, m)
		}
		return &out
	}
	p := Policy{Name: name, Namespace: "kuma-system", Mesh: "default"}
	p.Spec.Default = &api.MTPMatches{Deny: list(), AllowWithShadowDeny: list(), Allow: list()}
	return p
}

// mutate draws a new set from an old one: actions flipped, items and policies
// added or dropped, sometimes a SPIFFE-matcher policy.
func mutate(r *rand.Rand, old []Policy) []Policy {
	var out []Policy
	for _, p := range old {
		if r.Intn(6) == 0 {
			continue // deleted
		}
		q := p
		q.Spec.From = slices.Clone(p.Spec.From)
		for i := range q.Spec.From {
			if r.Intn(3) == 0 {
				q.Spec.From[i].Default.Action = propActions()[r.Intn(len(propActions()))]
			}
			if r.Intn(6) == 0 {
				ref := randomRef(r)
				q.Spec.From[i].TargetRef = &ref
			}
		}
		if r.Intn(4) == 0 && !q.IsRulesForm() {
			ref := randomRef(r)
			q.Spec.From = append(q.Spec.From, api.MTPFrom{TargetRef: &ref, Default: api.MTPConf{Action: propActions()[r.Intn(len(propActions()))]}})
		}
		out = append(out, q)
	}
	out = append(out, randomTopPolicies(r, r.Intn(3))...)
	if r.Intn(8) == 0 {
		out = append(out, randomMatcherPolicy(r, fmt.Sprintf("m%d", r.Intn(3))))
	}
	return out
}

// truth evaluates the group t of set ps for a client with the emitted Envoy
// config: `from` groups through their rules/shadow_rules principals, matcher
// groups through the network matcher and, when emitted, the HTTP one.
type truthClient struct {
	tags client  // the tag model's client (sans from its tags)
	req  request // the SPIFFE model's request
}

func truth(t *testing.T, ps []Policy, g Target, c truthClient, spiffe bool) verdict {
	t.Helper()
	var members []Policy
	for _, p := range ps {
		if Applies(TargetOf(p, "kuma-system"), g) {
			members = append(members, p)
		}
	}
	SortPolicies(members, "kuma-system")
	if usesMatchers(members) {
		var entries []SpiffeEntry
		for _, p := range members {
			if p.IsRulesForm() {
				entries = append(entries, SpiffeEntries(p)...)
			}
		}
		res, err := CompileMatchers(entries, "")
		if err != nil {
			t.Fatal(err)
		}
		allow := func(net, http bool) bool {
			m := res.Config.GetMatcher()
			if net {
				m = res.Config.GetShadowMatcher()
			}
			a, _ := evalMatcher(t, m, c.req)
			ok := a == rbacv3.RBAC_ALLOW
			if res.HTTP != nil {
				hm := res.HTTP.GetMatcher()
				if http {
					hm = res.HTTP.GetShadowMatcher()
				}
				ha, _ := evalMatcher(t, hm, c.req)
				ok = ok && ha == rbacv3.RBAC_ALLOW
			}
			return ok
		}
		return verdict{allow: allow(false, false), shadowAllow: allow(true, true)}
	}
	res, err := CompileFrom(g.Mesh, MergeFrom(members), Options{Form: FormCompact})
	if err != nil {
		t.Fatal(err)
	}
	sans := c.tags.sans()
	if spiffe {
		sans = c.req.sans
	}
	v := verdict{allow: evalRBAC(t, res.Config.GetRules(), sans)}
	v.shadowAllow = v.allow
	if res.Config.GetShadowRules() != nil {
		v.shadowAllow = evalRBAC(t, res.Config.GetShadowRules(), sans)
	}
	return v
}

// classify is the class of each dimension a client is in.
func classify(m *classModel, c truthClient) []int {
	if m.strDims != nil {
		vals := []string{"", c.req.sni, c.req.headers[":method"], c.req.headers[":path"]}
		if len(c.req.sans) > 0 {
			vals[0] = c.req.sans[0]
		}
		out := make([]int, len(m.strDims))
		for d, sd := range m.strDims {
			out[d] = strClassOf(sd, vals[d])
		}
		return out
	}
	out := []int{len(m.idClasses) - 1}
	svc, hasSvc := c.tags.tags[api.ServiceTag]
	for i, ic := range m.idClasses {
		if ic.otherMesh || ic.mesh != c.tags.mesh {
			continue
		}
		if (!ic.anySvc && hasSvc && ic.svc == svc) || (ic.anySvc && out[0] == len(m.idClasses)-1) {
			out[0] = i
		}
	}
	for k, key := range m.tagKeys {
		v, ok := c.tags.tags[key]
		idx := len(m.tagVals[k])
		if i := slices.Index(m.tagVals[k], v); ok && i >= 0 {
			idx = i
		}
		out = append(out, idx)
	}
	return out
}

func strClassOf(sd strDim, v string) int {
	best, bestLen := -1, -1
	for i, c := range sd.classes {
		switch c.Kind {
		case classes.StrExact:
			if c.Value == v {
				return i
			}
		case classes.StrPrefix:
			if strings.HasPrefix(v, c.Value) && len(c.Value) > bestLen {
				best, bestLen = i, len(c.Value)
			}
		case classes.StrOther:
			if bestLen < 0 {
				best = i
			}
		}
	}
	return best
}

// witness builds a client of a classes.Cell, choosing among its classes with r.
func witness(r *rand.Rand, m *classModel, c classes.Cell) truthClient {
	pickOf := func(d, n int) int {
		if c.Choice[d] == nil {
			return r.Intn(n)
		}
		return c.Choice[d][r.Intn(len(c.Choice[d]))]
	}
	if m.strDims != nil {
		var w [4]string
		for d, sd := range m.strDims {
			w[d] = sd.classes[pickOf(d, len(sd.classes))].Witness
		}
		req := request{sni: w[1], headers: map[string]string{}}
		if w[0] != "" {
			req.sans = []string{w[0]}
		}
		if w[2] != "" {
			req.headers[":method"] = w[2]
		}
		if w[3] != "" {
			req.headers[":path"] = w[3]
		}
		return truthClient{req: req}
	}
	ic := m.idClasses[pickOf(0, len(m.idClasses))]
	cl := client{mesh: ic.mesh, tags: map[string]string{api.ServiceTag: ic.svc}}
	switch {
	case ic.otherMesh:
		cl = client{mesh: "zz-mesh", tags: map[string]string{api.ServiceTag: "zz-svc"}}
	case ic.anySvc:
		cl.tags[api.ServiceTag] = "zz-svc"
	}
	for k, key := range m.tagKeys {
		if v := pickOf(k+1, len(m.tagVals[k])+1); v < len(m.tagVals[k]) {
			cl.tags[key] = m.tagVals[k][v]
		} else if r.Intn(2) == 0 {
			cl.tags[key] = "zz"
		}
	}
	return truthClient{tags: cl}
}

func randomSpiffeRequest(r *rand.Rand) truthClient {
	ids := []string{"spiffe://default/a", "spiffe://default/b", "spiffe://default/c", "spiffe://other/a", "spiffe://td/ns/x/sa/y", "spiffe://td/ns/z", "spiffe://x", ""}
	req := request{sni: []string{"a.svc", "b.svc", ""}[r.Intn(3)], headers: map[string]string{}}
	if id := ids[r.Intn(len(ids))]; id != "" {
		req.sans = []string{id}
	}
	if m := []string{"GET", "POST", "PUT", ""}[r.Intn(4)]; m != "" {
		req.headers[":method"] = m
	}
	req.headers[":path"] = []string{"/api", "/api/v1/x", "/metrics", "/", "/apix"}[r.Intn(5)]
	return truthClient{req: req}
}

func TestDiffClassesAgreeWithEmittedRBAC(t *testing.T) {
	r := rand.New(rand.NewSource(18))
	sets, changedGroups, spiffeChanged := 600, 0, 0
	for s := 0; s < sets; s++ {
		old := randomTopPolicies(r, r.Intn(6))
		if r.Intn(8) == 0 {
			old = append(old, randomMatcherPolicy(r, "m0"))
		}
		nw := mutate(r, old)
		diffs, err := DiffPolicies(old, nw, DiffOptions{})
		if err != nil {
			t.Fatalf("set %d: %v", s, err)
		}
		reported := map[string]GroupDiff{}
		for _, gd := range diffs {
			reported[gd.Target.key()] = gd
		}
		_, _, targets := distinctTargets(append(slices.Clip(old), nw...), "kuma-system")
		for _, kt := range targets {
			spiffe := checkGroup(t, r, s, kt.t, old, nw, reported[kt.t.key()])
			if len(reported[kt.t.key()].Changes) > 0 {
				changedGroups++
				if spiffe {
					spiffeChanged++
				}
			}
		}
	}
	t.Logf("%d changed groups, %d SPIFFE", changedGroups, spiffeChanged)
	if changedGroups < sets/4 || spiffeChanged < 20 {
		t.Errorf("only %d changed groups (%d SPIFFE) in %d sets: the generators hardly exercise the diff", changedGroups, spiffeChanged, sets)
	}
}

// checkGroup checks one group's cells against the emitted RBAC, for random
// clients and for a witness of every classes.Cell, and that the reported diff lists
// exactly the changed cells.
func checkGroup(t *testing.T, r *rand.Rand, s int, g Target, old, nw []Policy, gd GroupDiff) (spiffe bool) {
	t.Helper()
	var om, nm []Policy
	for _, p := range old {
		if Applies(TargetOf(p, "kuma-system"), g) {
			om = append(om, p)
		}
	}
	for _, p := range nw {
		if Applies(TargetOf(p, "kuma-system"), g) {
			nm = append(nm, p)
		}
	}
	SortPolicies(om, "kuma-system")
	SortPolicies(nm, "kuma-system")
	oldSide, err := newListSide(om, g.Mesh)
	if err != nil {
		t.Fatal(err)
	}
	newSide, err := newListSide(nm, g.Mesh)
	if err != nil {
		t.Fatal(err)
	}
	gc, err := computeCells(g, oldSide, newSide, DefaultMaxClasses)
	if err != nil || !gc.ok {
		t.Fatalf("set %d %s: %v (ok %v)", s, g.Scope(), err, gc.ok)
	}
	spiffe = gc.model.strDims != nil
	changed := 0
	check := func(c truthClient, where string) {
		cls := classify(gc.model, c)
		var in []int
		for k, cl := range gc.cells {
			inside := true
			for d, ch := range cl.Choice {
				inside = inside && (ch == nil || slices.Contains(ch, cls[d]))
			}
			if inside {
				in = append(in, k)
			}
		}
		if len(in) != 1 {
			t.Fatalf("set %d %s: %s client %+v is in %d cells, want 1", s, g.Scope(), where, c, len(in))
		}
		od, nd := gc.decisions(gc.cells[in[0]])
		wo, wn := truth(t, old, g, c, spiffe), truth(t, nw, g, c, spiffe)
		if (verdict{od.Allow, od.ShadowAllow}) != wo || (verdict{nd.Allow, nd.ShadowAllow}) != wn {
			t.Fatalf("set %d %s: %s client %+v in classes.Cell %v: classes.Cell says old %+v new %+v, Envoy RBAC says old %+v new %+v\nold: %s\nnew: %s",
				s, g.Scope(), where, c, gc.model.describe(gc.cells[in[0]].Choice), od, nd, wo, wn, policiesString(om), policiesString(nm))
		}
	}
	for _, c := range gc.cells {
		check(witness(r, gc.model, c), "witness")
		od, nd := gc.decisions(c)
		if changeKind(od, nd) != "" {
			changed++
		}
	}
	for i := 0; i < 30; i++ {
		if spiffe {
			check(randomSpiffeRequest(r), "random")
		} else {
			check(truthClient{tags: randomClient(r)}, "random")
		}
	}
	if len(gd.Changes) != changed {
		t.Fatalf("set %d %s: DiffPolicies reports %d changes, the cells have %d", s, g.Scope(), len(gd.Changes), changed)
	}
	return spiffe
}

func policiesString(ps []Policy) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "\n  %s %+v from=%d", p.Ref(), p.TopRef(), len(p.Spec.From))
		for _, f := range p.Spec.From {
			fmt.Fprintf(&b, "\n    %s %+v", f.Default.Action, *f.TargetRef)
		}
		if p.Spec.Default != nil {
			fmt.Fprintf(&b, "\n    rules %+v", *p.Spec.Default)
		}
	}
	return b.String()
}
