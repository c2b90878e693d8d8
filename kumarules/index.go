package kumarules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Index is the objects of one store prepared once for matching many proxies:
// each policy's top-level targetRef parsed once, the policies of each kind
// bucketed by the service or Dataplane name their targetRef names (the rest tested
// one by one), the objects a `to` item can name indexed by type and identifier,
// and, because every rule after selection depends only on which policies select a
// proxy (in merge order) and on the store, the rules of each distinct set of
// policies computed once and shared by the proxies that have that set. Without
// it, `meshguard inspect` of every proxy repeated the same work per proxy and per
// `to` item. Results it returns share their rules: callers must not modify them.
// An Index is not safe for concurrent use.
type Index struct {
	eng     *Engine
	objects []Policy
	tops    []TargetRef
	routes  []Policy
	kinds   map[string]*kindIndex
	res     *resourceIndex
	toMemo  map[string]toResult
	frMemo  map[string]fromResult
	key     []byte
}

// kindIndex is the policies of one kind that Kuma's matchers consider (not
// shadow ones), by what their top-level targetRef names.
type kindIndex struct {
	// scan are tested against every proxy: Mesh, MeshGateway, MeshHTTPRoute and
	// the refs no bucket can hold (a "*" value, no tags, no name).
	scan []int
	// byService are MeshService and MeshServiceSubset refs, by the service name.
	byService map[string][]int
	// byDataplane are Dataplane refs by name (without labels), by that name.
	byDataplane map[string][]int
	// byInboundTag are MeshSubset refs by one of their tags ("key=value"): only a
	// sidecar with an inbound that has that tag can be selected.
	byInboundTag map[string][]int
	// byLabel are Dataplane refs by labels (without name), by one of the labels.
	byLabel map[string][]int
	all     []int
	// rank is each policy's place in Kuma's matcher order among all of the kind
	// (ties in input order), so that sorting a proxy's policies compares ints;
	// computed on the kind's first match (see sortByRank).
	rank map[int]int
}

// pairKey picks the smallest key of m whose value is not "*" (nor "", for
// labels: a missing label reads as ""), as "key=value" ("" when none): a
// selector that holds for a proxy has that pair.
func pairKey(m map[string]string, labels bool) string {
	best := ""
	for k, v := range m {
		if v != "*" && !(labels && v == "") && (best == "" || k < best) {
			best = k
		}
	}
	if best == "" {
		return ""
	}
	return best + "=" + m[best]
}

// warnTopLevel opens Kuma's warning when the single-item rules cannot be built.
const warnTopLevel = "couldn't create top level rules: "

// toResult and fromResult are the rules of one set of policies, with the warning
// Kuma logs when they cannot be built.
type toResult struct {
	to     ToRules
	single SingleItemRules
	warns  []string
}

type fromResult struct {
	rules FromRules
	warn  string
}

// MatchOptions choose what MatchedPolicies computes beyond selection.
type MatchOptions struct {
	// SkipLegacyTo leaves ToRules.Rules (the legacy kuma.io/service subset rules)
	// empty: no answer on a mesh whose MeshServices are Exclusive shows them, and
	// they cost more than the resource rules that are shown.
	SkipLegacyTo bool
}

// NewIndex prepares objects (the policies, the routes they target and the
// resources `to` items name, of one mesh) for MatchedPolicies over many proxies.
func (e *Engine) NewIndex(objects []Policy) *Index {
	x := &Index{eng: e, objects: objects, tops: make([]TargetRef, len(objects)), kinds: map[string]*kindIndex{},
		res: newResourceIndex(objects), toMemo: map[string]toResult{}, frMemo: map[string]fromResult{}}
	for i, p := range objects {
		x.tops[i] = p.TopRef()
		if p.Type == refMeshHTTPRoute {
			x.routes = append(x.routes, p)
		}
		if p.Labels["kuma.io/effect"] == "shadow" {
			continue
		}
		k := x.kinds[p.Type]
		if k == nil {
			k = &kindIndex{byService: map[string][]int{}, byDataplane: map[string][]int{},
				byInboundTag: map[string][]int{}, byLabel: map[string][]int{}}
			x.kinds[p.Type] = k
		}
		k.all = append(k.all, i)
		k.bucket(i, x.tops[i])
	}
	return x
}

// bucket files policy i under what its top-level ref names.
func (k *kindIndex) bucket(i int, ref TargetRef) {
	switch {
	case (ref.Kind == refMeshService || ref.Kind == refMeshServiceSubset) && ref.Name != "*" && ref.Tags[serviceTag] == "":
		k.byService[ref.Name] = append(k.byService[ref.Name], i)
	case ref.Kind == refDataplane && ref.Name != "" && !ref.HasLabels:
		k.byDataplane[ref.Name] = append(k.byDataplane[ref.Name], i)
	case ref.Kind == refDataplane && ref.Name == "" && pairKey(ref.Labels, true) != "":
		k.byLabel[pairKey(ref.Labels, true)] = append(k.byLabel[pairKey(ref.Labels, true)], i)
	case ref.Kind == refMeshSubset && pairKey(ref.Tags, false) != "":
		k.byInboundTag[pairKey(ref.Tags, false)] = append(k.byInboundTag[pairKey(ref.Tags, false)], i)
	default:
		k.scan = append(k.scan, i)
	}
}

// candidates are the policies of k that can select dp, ascending (input order):
// every one for a gateway, else those tested one by one and those bucketed under
// the services of dp's inbounds or under its name.
func (k *kindIndex) candidates(dp Dataplane) []int {
	if dp.Gateway != "" {
		return k.all
	}
	out := slices.Clone(k.scan)
	for _, in := range dp.Inbounds {
		if svc, ok := in.Tags[serviceTag]; ok {
			out = append(out, k.byService[svc]...)
		}
		if len(k.byInboundTag) > 0 {
			for t, v := range in.Tags {
				out = append(out, k.byInboundTag[t+"="+v]...)
			}
		}
	}
	out = append(out, k.byDataplane[dp.DisplayName()]...)
	if len(k.byLabel) > 0 {
		for l, v := range dp.Labels {
			out = append(out, k.byLabel[l+"="+v]...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// MatchedPolicies is Engine.MatchedPolicies over the indexed objects: the same
// policies, order, rules and warnings, with the rules of a set of policies computed
// once per Index.
func (x *Index) MatchedPolicies(policyType string, dp Dataplane, opts MatchOptions) (Matched, error) {
	var m Matched
	k := x.kinds[policyType]
	if k == nil {
		m = x.rulesOf(policyType, m, nil, nil, nil, opts)
		if dp.Gateway == gatewayBuiltin {
			m.Gateway = newGatewayRules()
		}
		return m, nil
	}
	gw := selectGateway(dp, x.objects)
	var selected []int
	byInbound := map[Listener][]int{}
	var byHost map[ListenerHostname][]int
	if dp.Gateway == gatewayBuiltin {
		byHost = map[ListenerHostname][]int{}
	}
	var order []Listener
	for _, i := range k.candidates(dp) {
		p := x.objects[i]
		sel, err := selects(p.Meta, x.tops[i], dp, gw, x.routes)
		if err != nil {
			m.Warnings = append(m.Warnings, fmt.Sprintf("unable to resolve TargetRef on policy: mesh:%s name:%s error:%q", p.Mesh, p.Name, err.Error()))
		}
		if !sel.any() {
			continue
		}
		selected = append(selected, i)
		for _, l := range sel.inbounds {
			if _, ok := byInbound[l]; !ok {
				order = append(order, l)
			}
			byInbound[l] = append(byInbound[l], i)
		}
		if byHost != nil {
			for _, h := range sel.hostnames {
				byHost[h] = append(byHost[h], i)
			}
		}
	}
	x.sortByRank(k, selected)
	for _, ids := range byInbound {
		x.sortByRank(k, ids)
	}
	m = x.rulesOf(policyType, m, selected, byInbound, order, opts)
	if byHost != nil {
		var warns []string
		m.Gateway, warns = x.gatewayRules(policyType, byInbound, byHost, opts)
		m.Warnings = insertBeforeTopLevel(m.Warnings, warns)
	}
	return m, nil
}

// rulesOf fills in m's policies and the rules of the selected set (in merge
// order) and of each inbound's set, computing each distinct set's once.
func (x *Index) rulesOf(policyType string, m Matched, selected []int, byInbound map[Listener][]int, order []Listener, opts MatchOptions) Matched {
	if len(selected) > 0 {
		m.Policies = x.policiesOf(selected)
	}
	m.FromRules = map[Listener]FromRules{}
	for _, l := range order {
		ids := byInbound[l]
		key := x.setKey('F', policyType, ids, false)
		fr, ok := x.frMemo[key]
		if !ok {
			rules, err := x.eng.BuildFromRules(x.policiesOf(ids))
			fr = fromResult{rules: rules}
			if err != nil {
				fr.warn = "couldn't create From rules: " + err.Error()
			}
			x.frMemo[key] = fr
		}
		if fr.warn != "" {
			m.Warnings = append(m.Warnings, fr.warn)
			continue
		}
		m.FromRules[l] = fr.rules
	}
	key := x.setKey('T', policyType, selected, opts.SkipLegacyTo)
	tr, ok := x.toMemo[key]
	if !ok {
		var err error
		if tr.to, err = x.eng.buildToRules(m.Policies, x.routes, x.res, !opts.SkipLegacyTo); err != nil {
			tr.warns = append(tr.warns, "couldn't create To rules: "+err.Error())
		}
		if tr.single, err = x.eng.BuildSingleItemRules(m.Policies); err != nil {
			tr.warns = append(tr.warns, warnTopLevel+err.Error())
		}
		x.toMemo[key] = tr
	}
	m.ToRules, m.Single = tr.to, tr.single
	m.Warnings = append(m.Warnings, tr.warns...)
	return m
}

// setKey names a set of policies in merge order, for the memo of its rules.
func (x *Index) setKey(what byte, policyType string, ids []int, skipLegacy bool) string {
	b := append(x.key[:0], what)
	if skipLegacy {
		b = append(b, '-')
	}
	b = append(b, policyType...)
	for _, i := range ids {
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(i), 36)
	}
	x.key = b
	return string(b)
}

func (x *Index) policiesOf(ids []int) []Policy {
	out := make([]Policy, len(ids))
	for j, i := range ids {
		out[j] = x.objects[i]
	}
	return out
}

// sortByRank orders a proxy's policies of kind k as sortIdx would, by rank,
// ranking the kind's policies first if no proxy has needed them yet.
func (x *Index) sortByRank(k *kindIndex, ids []int) {
	if k.rank == nil {
		all := slices.Clone(k.all)
		x.sortIdx(all)
		k.rank = make(map[int]int, len(all))
		for r, i := range all {
			k.rank[i] = r
		}
	}
	slices.SortFunc(ids, func(a, b int) int { return k.rank[a] - k.rank[b] })
}

// sortIdx orders policies (by index) as Kuma's matchers order them
// (compareMatched), stably, with the top-level refs parsed once.
func (x *Index) sortIdx(ids []int) {
	slices.SortStableFunc(ids, func(a, b int) int {
		return compareMatched(x.objects[a].Meta, x.tops[a], x.objects[b].Meta, x.tops[b])
	})
}

// insertBeforeTopLevel puts the gateway rules' warnings where Kuma logs them:
// after the from and to rules' warnings, before the top-level rules' one.
func insertBeforeTopLevel(warnings, gateway []string) []string {
	at := len(warnings)
	for i, w := range warnings {
		if strings.HasPrefix(w, warnTopLevel) {
			at = i
			break
		}
	}
	return slices.Insert(warnings, at, gateway...)
}
