package kumaauthz

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/internal/warnline"
)

// view is what a group's merged list decides, in the words of the summary, and
// what the admitted policy changes in it.
type view struct {
	matcher bool
	// denyFirst are a matcher group's deny entries (evaluated before the allows).
	denyFirst []string
	// allowed are the clients an item that decides allows (enforced).
	allowed []string
	// shadowDeny and shadowAllow are the clients shadow rules treat otherwise.
	shadowDeny, shadowAllow []string
	// chain is a `from` group's items that decide, in merge order; never counts
	// the others.
	chain []string
	never int
	// partly says a later deny item takes part of an allowed item's clients.
	partly bool
	// inc is the admitted policy's effect.
	inc effect
}

// effect is what the admitted policy changes for a group's clients: newly allowed
// (enforced), newly denied (allowed without it), its shadow rules; has says it has
// items in the group, decides that one of them decides for some client.
type effect struct {
	allowed, denied         []string
	shadowDeny, shadowAllow []string
	has, decides            bool
}

// lines are the view's statements: who is denied first (matchers), allowed, and
// treated otherwise by shadow rules.
func (v view) lines() []statement {
	var out []statement
	add := func(rank, lines int, l warnline.Line) {
		out = append(out, statement{rank: rank, lines: lines, line: l})
	}
	if len(v.denyFirst) > 0 {
		add(rankAllowed, 1, warnline.Line{Lead: "denied first: ", Items: v.denyFirst})
	}
	// Enforced: the head line says so; shadow rules have lines of their own.
	tail := "; everyone else denied"
	if v.partly {
		tail = " (unless a later item denies)" + tail
	}
	if len(v.allowed) == 0 {
		add(rankAllowed, 1, warnline.Line{Lead: "allowed: nobody; every client is denied"})
	} else {
		add(rankAllowed, 2, warnline.Line{Lead: "allowed: ", Cont: "allowed, continued: ", Items: v.allowed, Tail: tail})
	}
	if len(v.shadowDeny) > 0 {
		add(rankShadow, 1, warnline.Line{Lead: "shadow (not enforced) would deny: ", Items: v.shadowDeny})
	}
	if len(v.shadowAllow) > 0 {
		add(rankShadow, 1, warnline.Line{Lead: "shadow (not enforced) would allow: ", Items: v.shadowAllow})
	}
	return out
}

// effectLines say what incoming changes: the clients it newly allows or denies
// (enforced, as the head line says), counted; its shadow rules; or that it
// changes nothing (in a matcher group, because deny matchers cover its allows).
func effectLines(incoming string, e effect, matcher bool) []statement {
	var out []statement
	add := func(lead string, items []string) {
		out = append(out, statement{rank: rankEffect, lines: 1, line: warnline.Line{Lead: incoming + lead, Items: items}})
	}
	if n := len(e.allowed); n > 0 {
		add(" allows "+plural(n, "more client", "more clients")+": ", e.allowed)
	}
	if n := len(e.denied); n > 0 {
		add(" denies "+plural(n, "client", "clients")+" allowed before: ", e.denied)
	}
	if len(e.shadowDeny) > 0 {
		add(" would deny, in shadow only: ", e.shadowDeny)
	}
	if len(e.shadowAllow) > 0 {
		add(" would allow, in shadow only: ", e.shadowAllow)
	}
	if len(out) > 0 {
		return out
	}
	switch {
	case !e.has:
		add(" has no items that apply to these proxies", nil)
	case !e.decides && matcher:
		add(" changes nothing here: deny matchers cover every client it allows", nil)
	case !e.decides:
		add(" changes nothing here: later items cover every client it matches", nil)
	default:
		add(" changes no client's enforced access here", nil)
	}
	return out
}

// fromView reads a `from` group: the items that decide (a later item covering an
// item makes it never decide), and incoming's effect against the list without it.
func fromView(p Preview, incoming string) view {
	var v view
	cs, ok := previewCItems(p)
	words := make([]string, len(p.Items))
	for i, it := range p.Items {
		words[i] = clientWords(it.TargetRef, p.Target.Mesh)
	}
	if !ok { // not compiled (an unknown action): the items as they are
		for i, it := range p.Items {
			v.chain = append(v.chain, it.Action+" "+words[i])
		}
		return v
	}
	dead := deadAmong(cs, nil)
	for i, it := range p.Items {
		if dead[i] {
			continue
		}
		v.chain = append(v.chain, it.Action+" "+words[i])
		switch a := cs[i].action; {
		case a.Allows():
			v.allowed = append(v.allowed, words[i])
			if a == AllowWithShadowDeny {
				v.shadowDeny = append(v.shadowDeny, words[i])
			}
		case a == DenyWithShadowAllow:
			v.shadowAllow = append(v.shadowAllow, words[i])
		}
	}
	v.never = len(p.Items) - len(v.chain)
	for i := 0; i < len(cs) && !v.partly; i++ {
		for j := i + 1; j < len(cs) && !dead[i] && cs[i].action.Allows() && !v.partly; j++ {
			v.partly = !dead[j] && !cs[j].action.Allows() && overlaps(cs[i], cs[j])
		}
	}
	if incoming != "" {
		v.inc = fromEffect(p, incoming, cs, dead, words)
	}
	return v
}

// fromEffect compares the list with and without incoming's items. An item of
// incoming that decides newly allows its clients unless, without incoming, an
// allowing item covers them and no later deny touches them; it newly denies the
// clients of earlier allowing items (that decide without incoming) it overlaps.
func fromEffect(p Preview, incoming string, cs []cItem, dead []bool, words []string) effect {
	var e effect
	before := make([]bool, len(cs))
	for i, it := range p.Items {
		before[i] = it.Policy != incoming
	}
	deadBefore := deadAmong(cs, before)
	for i := range cs {
		if before[i] {
			continue
		}
		e.has = true
		if dead[i] {
			continue
		}
		e.decides = true
		switch a := cs[i].action; {
		case a.Allows():
			if !allowedWithout(cs, before, i) {
				e.allowed = append(e.allowed, words[i])
			}
			if a == AllowWithShadowDeny {
				e.shadowDeny = append(e.shadowDeny, words[i])
			}
		default:
			for x := 0; x < i; x++ {
				if before[x] && !deadBefore[x] && cs[x].action.Allows() && overlaps(cs[x], cs[i]) {
					if covers(cs[i], cs[x]) {
						e.denied = append(e.denied, words[x])
					} else {
						e.denied = append(e.denied, words[i])
					}
				}
			}
			if a == DenyWithShadowAllow {
				e.shadowAllow = append(e.shadowAllow, words[i])
			}
		}
	}
	e.allowed, e.denied = dedupe(e.allowed), dedupe(e.denied)
	return e
}

// allowedWithout reports whether, among the items of mask, an allowing item covers
// cs[i] and no later denying item of mask overlaps it. The latest covering allow
// is the one to check: a deny after an earlier one is also after it or overlaps
// before it, so O(len(cs)).
func allowedWithout(cs []cItem, mask []bool, i int) bool {
	x := -1
	for k := len(cs) - 1; k >= 0 && x < 0; k-- {
		if mask[k] && cs[k].action.Allows() && covers(cs[k], cs[i]) {
			x = k
		}
	}
	if x < 0 {
		return false
	}
	for y := x + 1; y < len(cs); y++ {
		if mask[y] && !cs[y].action.Allows() && overlaps(cs[y], cs[i]) {
			return false
		}
	}
	return true
}

// previewCItems are the compiled items of p's merged list (toItems of them as
// MergedItems, without building those); ok=false when an action does not parse.
func previewCItems(p Preview) ([]cItem, bool) {
	cs := make([]cItem, len(p.Items))
	n := 0
	for _, it := range p.Items {
		if r := it.TargetRef; r != nil {
			n += len(r.Tags) + 2
		}
	}
	buf := make([]atom, 0, n)
	for i, it := range p.Items {
		a, err := ParseAction(it.Action)
		if err != nil {
			return nil, false
		}
		start := len(buf)
		buf = itemAtoms(buf, it.TargetRef, p.Target.Mesh)
		cs[i] = cItem{atoms: buf[start:len(buf):len(buf)], action: a}
	}
	return cs, true
}

// deadAmong marks the items of mask (nil: all) that a later item of mask covers:
// they never decide. Lists of more than pairwiseItems items are checked through
// deadIndexed, so that a group near the preview's bound is not compared pair by
// pair.
func deadAmong(cs []cItem, mask []bool) []bool {
	if len(cs) > pairwiseItems {
		return deadIndexed(cs, mask)
	}
	return deadPairwise(cs, mask)
}

// pairwiseItems is the length up to which deadAmong compares items pairwise:
// an admission's lists are short, and the index costs more than it saves there.
const pairwiseItems = 64

// deadPairwise is deadAmong by comparing each item with every later one.
func deadPairwise(cs []cItem, mask []bool) []bool {
	in := func(i int) bool { return mask == nil || mask[i] }
	dead := make([]bool, len(cs))
	for i := range cs {
		for j := i + 1; j < len(cs) && in(i) && !dead[i]; j++ {
			dead[i] = in(j) && covers(cs[j], cs[i])
		}
	}
	return dead
}

// maxImplied bounds the atoms an item may imply for deadIndexed to look its
// subsets up (2^maxImplied lookups); items with more are compared pairwise.
const maxImplied = 8

// deadIndexed is deadAmong through the atom sets of the later items: covers(j, i)
// holds exactly when every atom of j is implied by an atom of i (itself, or the
// mesh condition of a service atom), so i is dead when one of the subsets of
// what it implies is the atom set of a later item of mask.
func deadIndexed(cs []cItem, mask []bool) []bool {
	dead := make([]bool, len(cs))
	later := map[string]bool{}
	var laterIdx []int
	for i := len(cs) - 1; i >= 0; i-- {
		if mask != nil && !mask[i] {
			continue
		}
		if imp := impliedAtoms(cs[i].atoms); len(imp) <= maxImplied {
			for sub := 0; sub < 1<<len(imp) && !dead[i]; sub++ {
				dead[i] = later[subsetKey(imp, sub)]
			}
		} else {
			for _, j := range laterIdx {
				if covers(cs[j], cs[i]) {
					dead[i] = true
					break
				}
			}
		}
		later[subsetKey(setOf(cs[i].atoms), -1)] = true
		laterIdx = append(laterIdx, i)
	}
	return dead
}

// impliedAtoms is the set of atoms a client matching all of atoms satisfies:
// atoms and the mesh condition of each service atom, sorted (atomLess), once each.
func impliedAtoms(atoms []atom) []atom {
	out := slices.Clone(atoms)
	for _, a := range atoms {
		if a.kind == atomService {
			out = append(out, atom{kind: atomMesh, key: a.key})
		}
	}
	return setOf(out)
}

// setOf is atoms sorted (atomLess) once each, in a new slice.
func setOf(atoms []atom) []atom {
	out := slices.Clone(atoms)
	slices.SortFunc(out, func(a, b atom) int {
		return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.key, b.key), cmp.Compare(a.value, b.value))
	})
	return slices.Compact(out)
}

// subsetKey names the subset of the sorted set atoms that the bits of sub select
// (-1: all of it), the same for the same set of atoms.
func subsetKey(atoms []atom, sub int) string {
	var b strings.Builder
	for k, a := range atoms {
		if sub >= 0 && sub&(1<<k) == 0 {
			continue
		}
		b.WriteByte(byte('0' + a.kind))
		b.WriteString(strconv.Itoa(len(a.key)))
		b.WriteByte(':')
		b.WriteString(a.key)
		b.WriteString(strconv.Itoa(len(a.value)))
		b.WriteByte(':')
		b.WriteString(a.value)
	}
	return b.String()
}

// matcherView reads a SPIFFE-matcher group: deny entries first, then the allow
// entries no deny entry (without HTTP conditions) covers; and incoming's effect.
func matcherView(p Preview, incoming string) view {
	v := view{matcher: true}
	all := make([]bool, len(p.Items))
	before := make([]bool, len(p.Items))
	for i, it := range p.Items {
		all[i], before[i] = true, it.Policy != incoming
	}
	alive := aliveAllows(p.Items, all)
	for i, it := range p.Items {
		switch {
		case it.List == ListDeny:
			v.denyFirst = append(v.denyFirst, matcherWords(it))
		case it.List == ListAllow && alive[i]:
			v.allowed = append(v.allowed, matcherWords(it))
		}
	}
	for i, it := range p.Items { // then allowWithShadowDeny, allowed too
		if it.List == ListAllowWithShadowDeny && alive[i] {
			v.allowed = append(v.allowed, matcherWords(it))
			v.shadowDeny = append(v.shadowDeny, matcherWords(it))
		}
	}
	if incoming == "" {
		return v
	}
	e := &v.inc
	aliveBefore := aliveAllows(p.Items, before)
	for i, it := range p.Items {
		if before[i] {
			continue
		}
		e.has = true
		if it.List == ListDeny {
			e.decides = true
			for x, old := range p.Items {
				if !before[x] || old.List == ListDeny || !aliveBefore[x] {
					continue
				}
				switch {
				case itemCovers(it, old):
					e.denied = append(e.denied, matcherWords(old))
				case itemCovers(old, it):
					e.denied = append(e.denied, matcherWords(it))
				}
			}
			continue
		}
		if !alive[i] {
			continue
		}
		e.decides = true
		if !allowedBy(p.Items, before, aliveBefore, it) {
			e.allowed = append(e.allowed, matcherWords(it))
		}
		if it.List == ListAllowWithShadowDeny {
			e.shadowDeny = append(e.shadowDeny, matcherWords(it))
		}
	}
	e.allowed, e.denied = dedupe(e.allowed), dedupe(e.denied)
	return v
}

// aliveAllows marks the allow entries of mask that have a condition (Kuma skips an
// empty matcher) and that no deny entry of mask without HTTP conditions covers (deny
// entries are evaluated first).
func aliveAllows(items []PreviewItem, mask []bool) []bool {
	var denies []PreviewItem
	for d, it := range items {
		if mask[d] && it.List == ListDeny && !itemHTTP(it) {
			denies = append(denies, it)
		}
	}
	alive := make([]bool, len(items))
	for i, it := range items {
		if !mask[i] || it.List == ListDeny || itemEmpty(it) {
			continue
		}
		alive[i] = true
		for _, d := range denies {
			if itemCovers(d, it) {
				alive[i] = false
				break
			}
		}
	}
	return alive
}

// itemMatch is the matcher a preview item shows.
func itemMatch(it PreviewItem) api.SpiffeMatch {
	return api.SpiffeMatch{SpiffeID: it.SpiffeID, SNI: it.SNI, Method: it.Method, Path: it.RequestPath}
}

// itemEmpty reports whether a matcher item has no condition: it matches nothing.
func itemEmpty(it PreviewItem) bool { return SpiffeEntry{Match: itemMatch(it)}.empty() }

// itemCovers reports whether matcher item a matches every client b matches (HTTP
// conditions aside); an empty matcher covers nothing and is covered by anything.
func itemCovers(a, b PreviewItem) bool {
	return !itemEmpty(a) && !itemEmpty(b) && matchCovers(itemMatch(a), itemMatch(b))
}

// allowedBy reports whether an allow entry of mask that is alive (no deny entry
// of mask covers it) already admits what e admits.
func allowedBy(items []PreviewItem, mask, alive []bool, e PreviewItem) bool {
	for x, it := range items {
		if !mask[x] || !alive[x] {
			continue
		}
		sameHTTP := !itemHTTP(it) || (it.Method == e.Method && sameStringMatch(it.RequestPath, e.RequestPath))
		if sameHTTP && itemCovers(it, e) {
			return true
		}
	}
	return false
}

func itemHTTP(it PreviewItem) bool { return it.Method != "" || it.RequestPath != nil }

func sameStringMatch(a, b *api.StringMatch) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Type == b.Type && a.Value == b.Value
}
