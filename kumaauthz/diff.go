package kumaauthz

import (
	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/internal/classes"

	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/meshguard/meshguard/api"
)

// DiffPolicies answers "what does this change open up?" for MeshTrafficPermissions:
// for every group of proxies (the groups BuildPreviews compiles, taken over both
// sets), which clients the new set decides differently from the old one, with the
// item that decides in each. Clients are not sampled: they are enumerated as the
// classes the two merged lists can tell apart (see classes.go), so a client that
// is not in any reported change is decided alike by both sets.
//
// The decision is the merged list's, at the level of compile's merged items: for
// a `from` group the last matching item decides and no match denies (the rule the
// compiled rules/shadow_rules implement, which TestCompiledFormsMatchListEvaluator
// checks against the emitted Envoy principals); for a SPIFFE-matcher group the
// deny matchers are evaluated first, then allow and allowWithShadowDeny, no match
// denies (the matcher tree's order; method and path conditions included, as the
// HTTP RBAC filter applies them).

// DefaultMaxClasses bounds the client classes DiffPolicies enumerates for one
// group when DiffOptions.MaxClasses is 0.
const DefaultMaxClasses = 20000

// DiffOptions tune DiffPolicies.
type DiffOptions struct {
	// SystemNamespace is where mesh-wide policies live (empty: kuma-system).
	SystemNamespace string
	// MaxClasses bounds the client classes of one group (0: DefaultMaxClasses);
	// past it the group is reported as not compared, never half compared.
	MaxClasses int
	// MaxGroupItems bounds the merged items of a group on either side, as
	// Options.MaxGroupItems bounds a preview (0: no bound); a larger group is
	// reported as not compared. The admission webhook sets it.
	MaxGroupItems int
	// OldIdentities and NewIdentities are the MeshIdentities of each set: the
	// proxies a Ready one selects are programmed from `rules` policies only.
	OldIdentities, NewIdentities []Identity
}

// The kinds of change a client class can see.
const (
	// ChangeWidened: the enforced rules deny the class before and allow it after.
	ChangeWidened = access.ChangeWidened
	// ChangeNarrowed: allowed before, denied after.
	ChangeNarrowed = access.ChangeNarrowed
	// ChangeShadow: the enforced decision is the same, the shadow one is not.
	ChangeShadow = access.ChangeShadow
)

// Client models: how clients are described in a group's diff.
const (
	// ModelTags: by tags and mesh, as the URI SANs of Kuma's tag certificates
	// (both sides are `from` lists).
	ModelTags = "tags"
	// ModelSpiffe: by SPIFFE ID, SNI, method and path (a side uses SPIFFE matchers).
	ModelSpiffe = "spiffe"
)

// ItemRef names the item of a merged list that decides.
type ItemRef struct {
	Policy string `json:"policy"`
	Path   string `json:"path"`
	// Action is the `from` item's action, or the matcher's list (deny, allow,
	// allowWithShadowDeny).
	Action string `json:"action"`
}

// String is "ns/name spec.from[0] (ALLOW)".
func (r *ItemRef) String() string {
	if r == nil {
		return "no item matches (default deny)"
	}
	return r.Policy + " " + r.Path + " (" + r.Action + ")"
}

// ClassDecision is what one side decides for a class of clients.
type ClassDecision struct {
	Allow       bool `json:"allow"`
	ShadowAllow bool `json:"shadowAllow"`
	// By is the deciding item; nil when no item matches (the proxy denies).
	By *ItemRef `json:"by"`
	// ShadowBy is the item deciding the shadow rules when it is not By.
	ShadowBy *ItemRef `json:"shadowBy,omitempty"`
}

// Change is one class of clients decided differently by the new set.
type Change struct {
	Kind string `json:"change"`
	// Clients are the conditions the class's clients meet, all of them (none:
	// every client).
	Clients []string      `json:"clients"`
	Old     ClassDecision `json:"old"`
	New     ClassDecision `json:"new"`
}

// GroupDiff is the difference for one group of proxies.
type GroupDiff struct {
	Target      Target   `json:"target"`
	Scope       string   `json:"scope"`
	OldPolicies []string `json:"oldPolicies"`
	NewPolicies []string `json:"newPolicies"`
	Model       string   `json:"model"`
	// OldIdentity and NewIdentity are the MeshIdentity giving these proxies
	// their identity in each set (Ref; empty: none); Identity says in words
	// what that does to the policies programmed.
	OldIdentity string `json:"oldIdentity,omitempty"`
	NewIdentity string `json:"newIdentity,omitempty"`
	Identity    string `json:"identity,omitempty"`
	// Classes is how many client classes the two lists tell apart (all compared).
	Classes int `json:"classes"`
	// Incomplete says why the group was not compared (too many classes); it then
	// has no Changes.
	Incomplete string   `json:"incomplete,omitempty"`
	Changes    []Change `json:"changes"`
}

// Widens reports whether some class gains enforced access.
func (g GroupDiff) Widens() bool {
	for _, c := range g.Changes {
		if c.Kind == ChangeWidened {
			return true
		}
	}
	return false
}

// diffSide is one policy set with what grouping derives from each policy once.
type diffSide struct {
	ps      []Policy
	pts     []Target
	keys    []string
	refs    []string
	sortK   []sortKey
	byScope map[[2]string][]int
	// Each policy's part of a merged list, derived once: its `from` items with
	// their atoms (in the policy's mesh, the mesh of every group it is in), or
	// its SPIFFE matchers.
	items   [][]MergedItem
	cs      [][]cItem
	itemErr []error
	entries [][]SpiffeEntry
	rules   []bool
	// rank is each policy's position in merge order (ties: input order).
	rank []int
}

func newDiffSide(ps []Policy, sysNS string) *diffSide {
	n := len(ps)
	s := &diffSide{ps: ps, byScope: map[[2]string][]int{}, refs: make([]string, 0, n),
		items: make([][]MergedItem, 0, n), cs: make([][]cItem, 0, n), itemErr: make([]error, 0, n),
		entries: make([][]SpiffeEntry, 0, n), rules: make([]bool, 0, n), sortK: make([]sortKey, 0, n)}
	s.pts, s.keys, _ = distinctTargets(ps, sysNS)
	for i, p := range ps {
		s.refs = append(s.refs, p.Ref())
		items := mergeFrom([]Policy{p}, s.refs[i:i+1])
		cs, err := toItems(items, p.Mesh)
		s.items, s.cs, s.itemErr = append(s.items, items), append(s.cs, cs), append(s.itemErr, err)
		var es []SpiffeEntry
		if p.IsRulesForm() {
			es = SpiffeEntries(p)
		}
		s.entries, s.rules = append(s.entries, es), append(s.rules, p.IsRulesForm())
		s.sortK = append(s.sortK, keyOf(p, sysNS))
		k := [2]string{s.pts[i].Mesh, s.pts[i].Namespace}
		s.byScope[k] = append(s.byScope[k], i)
	}
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := compareKeys(s.sortK[a], s.sortK[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	s.rank = make([]int, len(ps))
	for r, i := range order {
		s.rank[i] = r
	}
	return s
}

// members are the indexes of the side's policies that apply to t, in merge order.
func (s *diffSide) members(t Target, key string) []int {
	cand := s.byScope[[2]string{t.Mesh, ""}]
	if t.Namespace != "" {
		cand = mergeSorted(cand, s.byScope[[2]string{t.Mesh, t.Namespace}])
	}
	var out []int
	for _, i := range cand {
		if appliesKeyed(s.pts[i], t, s.keys[i], key) {
			out = append(out, i)
		}
	}
	slices.SortFunc(out, func(a, b int) int { return cmp.Compare(s.rank[a], s.rank[b]) })
	return out
}

// inlineGroups is how many groups DiffPolicies compares without starting
// workers: an admission's few.
const inlineGroups = 4

// DiffPolicies compares the old and new policy sets group by group and returns
// the groups where some client class is decided differently or that could not be
// compared, in BuildPreviews' group order. A group whose merged policies are
// identical in both sets is not compared at all.
func DiffPolicies(oldPs, newPs []Policy, opts DiffOptions) ([]GroupDiff, error) {
	sysNS := opts.SystemNamespace
	if sysNS == "" {
		sysNS = api.DefaultSystemNS
	}
	limit := opts.MaxClasses
	if limit <= 0 {
		limit = DefaultMaxClasses
	}
	oldS, newS := newDiffSide(oldPs, sysNS), newDiffSide(newPs, sysNS)
	_, _, targets := distinctTargets(append(slices.Clip(oldPs), newPs...), sysNS)
	// Groups are independent: they are compared by a worker per core, each
	// result kept at its group's index so the output order stays BuildPreviews'.
	// A few groups (an admission's) are compared on the caller's goroutine:
	// starting workers would cost more than it saves.
	results := make([][]GroupDiff, len(targets))
	errs := make([]error, len(targets))
	compare := func(i int) {
		results[i], errs[i] = compareVariants(targets[i], oldS, newS, limit, opts)
	}
	if workers := min(runtime.GOMAXPROCS(0), len(targets)); workers <= 1 || len(targets) <= inlineGroups {
		for i := range targets {
			compare(i)
		}
	} else {
		next := make(chan int)
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for i := range next {
					compare(i)
				}
			})
		}
		for i := range targets {
			next <- i
		}
		close(next)
		wg.Wait()
	}
	var out []GroupDiff
	for i, gds := range results {
		if errs[i] != nil {
			return nil, errs[i]
		}
		out = append(out, gds...)
	}
	return out, nil
}

// compareVariants compares one group, part by part when MeshIdentities give
// some of its proxies an identity (identityVariants): the GroupDiffs of the
// parts where something changes.
func compareVariants(kt keyedTarget, oldS, newS *diffSide, limit int, opts DiffOptions) ([]GroupDiff, error) {
	om, nm := oldS.members(kt.t, kt.key), newS.members(kt.t, kt.key)
	same := sameMembers(oldS, om, newS, nm)
	vs := []identityVariant{{}}
	if len(opts.OldIdentities)+len(opts.NewIdentities) > 0 {
		vs = identityVariants(kt.t, opts.OldIdentities, opts.NewIdentities)
	}
	var out []GroupDiff
	for _, v := range vs {
		if same && v.oldOn() == v.newOn() {
			continue
		}
		gd, err := compareGroup(kt.t, oldS, om, newS, nm, v, limit, opts.MaxGroupItems)
		if err != nil {
			return nil, err
		}
		if gd.Incomplete == "" && len(gd.Changes) == 0 {
			continue
		}
		v.describe(&gd, len(vs) > 1)
		out = append(out, gd)
	}
	return out, nil
}

// compareGroup is the GroupDiff of one part of a group: its proxies get the
// members om of the old side and nm of the new, programmed as the identities
// of v say.
func compareGroup(t Target, oldS *diffSide, om []int, newS *diffSide, nm []int, v identityVariant, limit, maxItems int) (GroupDiff, error) {
	gd, over := overItems(t, pick(oldS, om), pick(newS, nm), maxItems)
	if !over {
		side := func(s *diffSide, idx []int, identity bool) (*listSide, error) {
			if identity {
				return s.identitySide(idx), nil
			}
			return s.listSide(idx)
		}
		oldSide, err := side(oldS, om, v.oldOn())
		if err != nil {
			return gd, fmt.Errorf("%s: %v", t.Scope(), err)
		}
		newSide, err := side(newS, nm, v.newOn())
		if err != nil {
			return gd, fmt.Errorf("%s: %v", t.Scope(), err)
		}
		if gd, err = diffGroup(t, oldSide, newSide, limit); err != nil {
			return gd, fmt.Errorf("%s: %v", t.Scope(), err)
		}
	}
	gd.OldPolicies, gd.NewPolicies = pickRefs(oldS, om), pickRefs(newS, nm)
	return gd, nil
}

// overItems reports (as a GroupDiff saying so) a group whose merged list on
// either side is past the bound.
func overItems(t Target, oldM, newM []Policy, bound int) (GroupDiff, bool) {
	for _, ps := range [][]Policy{oldM, newM} {
		if n, tags := groupSize(ps); overBound(n, tags, bound) {
			return GroupDiff{Target: t, Scope: t.Scope(), Model: ModelTags, Incomplete: fmt.Sprintf(
				"%d items (up to %d tags each) to merge exceed the bound of %d; not compared here (meshguard diff compares any size)", n, tags, bound)}, true
		}
	}
	return GroupDiff{}, false
}

func sameMembers(a *diffSide, am []int, b *diffSide, bm []int) bool {
	if len(am) != len(bm) {
		return false
	}
	for k := range am {
		if !samePolicy(&a.ps[am[k]], &b.ps[bm[k]]) {
			return false
		}
	}
	return true
}

// samePolicy reports whether two policies are the same: the same JSON encoding.
// Only the members of the groups compared are asked, so most policies of a side
// (those of groups that differ in size, the stored ones of an admission) are
// never encoded; equal values (reflect.DeepEqual, the common case of a stored
// policy on both sides) are not encoded either, since they encode alike. A
// Policy holds strings, string maps, slices and pointers only: encoding it
// cannot fail.
func samePolicy(a, b *Policy) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// listSide is the merged list of the side's policies idx (in merge order), from
// what newDiffSide derived: a SPIFFE-matcher list when one of them uses matchers.
func (s *diffSide) listSide(idx []int) (*listSide, error) {
	out := &listSide{}
	for _, i := range idx {
		out.matcher = out.matcher || s.rules[i]
	}
	for _, i := range idx {
		if out.matcher {
			out.entries = append(out.entries, s.entries[i]...)
			continue
		}
		if s.itemErr[i] != nil {
			return nil, s.itemErr[i]
		}
		out.items = append(out.items, s.items[i]...)
		out.cs = append(out.cs, s.cs[i]...)
	}
	return out, nil
}

func pick(s *diffSide, idx []int) []Policy {
	out := make([]Policy, len(idx))
	for k, i := range idx {
		out[k] = s.ps[i]
	}
	return out
}

func pickRefs(s *diffSide, idx []int) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = s.refs[i]
	}
	return out
}

// groupCells are the client classes of one group's old and new merged lists.
type groupCells struct {
	model            *classModel
	cells            []classes.Cell
	oldSide, newSide *listSide
	ok               bool
}

func computeCells(t Target, oldSide, newSide *listSide, limit int) (groupCells, error) {
	g := groupCells{oldSide: oldSide, newSide: newSide}
	var err error
	if spiffeSides(g.oldSide, g.newSide) {
		if g.model, err = spiffeModel(g.oldSide, g.newSide); err != nil {
			return g, err
		}
	} else {
		g.model = tagModel(g.oldSide, g.newSide, t.Mesh)
	}
	g.cells, g.ok = g.model.enum(limit).Run(g.model.start)
	return g, nil
}

// spiffeSides reports whether clients must be described by SPIFFE ID: a side
// has SPIFFE matchers. A matcher side without any (a proxy with a MeshIdentity
// and no `rules` policy) denies every client whatever its certificate, so the
// other side's `from` items keep the tag model, where their tags mean something.
func spiffeSides(o, n *listSide) bool {
	return (o.matcher && len(o.entries) > 0) || (n.matcher && len(n.entries) > 0)
}

// decisions are the old and new decisions for classes.Cell c.
func (g groupCells) decisions(c classes.Cell) (ClassDecision, ClassDecision) {
	return g.oldSide.decide(c.Met, 0), g.newSide.decide(c.Met, g.model.newOff)
}

// changeKind is the kind of change between two decisions, "" for none.
func changeKind(od, nd ClassDecision) string {
	switch {
	case !od.Allow && nd.Allow:
		return ChangeWidened
	case od.Allow && !nd.Allow:
		return ChangeNarrowed
	case od.ShadowAllow != nd.ShadowAllow:
		return ChangeShadow
	}
	return ""
}

// diffGroup compares the merged lists of one group's old and new policies.
func diffGroup(t Target, oldSide, newSide *listSide, limit int) (GroupDiff, error) {
	gd := GroupDiff{Target: t, Scope: t.Scope(), Model: ModelTags}
	g, err := computeCells(t, oldSide, newSide, limit)
	if err != nil {
		return gd, err
	}
	if spiffeSides(g.oldSide, g.newSide) {
		gd.Model = ModelSpiffe
	}
	if !g.ok {
		gd.Incomplete = fmt.Sprintf("more than %d client classes to compare (the bound); this group was not compared", limit)
		return gd, nil
	}
	gd.Classes = len(g.cells)
	for _, c := range g.cells {
		od, nd := g.decisions(c)
		kind := changeKind(od, nd)
		if kind == "" {
			continue
		}
		gd.Changes = append(gd.Changes, Change{Kind: kind, Clients: g.model.describe(c.Choice), Old: od, New: nd})
	}
	rank := map[string]int{ChangeWidened: 0, ChangeNarrowed: 1, ChangeShadow: 2}
	slices.SortStableFunc(gd.Changes, func(a, b Change) int {
		return cmp.Or(cmp.Compare(rank[a.Kind], rank[b.Kind]), cmp.Compare(strings.Join(a.Clients, ","), strings.Join(b.Clients, ",")))
	})
	return gd, nil
}
