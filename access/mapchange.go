package access

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
)

// CompareMaps is what a change of input does to the map: every destination
// and client ID of either map, paired, with the cells that open (denied or
// absent before, allowed after), close (the reverse), keep their decision
// under another deciding item (rule-changed) or keep both and change the
// shadow decision (shadow-changed). Items are compared by kind, policy, path
// and action (and the default's reason), not by file and line, so moving a
// policy in its file changes nothing. Pairs are compared once per class
// quadruple (old and new destination and client class).
func CompareMaps(old, new *Map) *MapChange {
	ch := &MapChange{Version: MapVersion, Old: old, New: new, Changes: []MapCellChange{}}
	od, nd := destIndex(old), destIndex(new)
	oc, nc := clientIndex(old), clientIndex(new)
	ocells, ncells := old.CellsByClass(), new.CellsByClass()
	dests := unionIDs(new.Destinations, old.Destinations, func(d MapDestination) string { return d.ID })
	clients := unionIDs(new.Clients, old.Clients, func(c MapClient) string { return c.ID })
	type memo struct {
		kind     string
		oa, na   *Answer
		computed bool
	}
	seen := map[[4]int]memo{}
	for _, d := range dests {
		for _, c := range clients {
			k := [4]int{classOf(od, d), classOf(oc, c), classOf(nd, d), classOf(nc, c)}
			r, ok := seen[k]
			if !ok {
				r.oa, r.na = answerAt(ocells, k[0], k[1]), answerAt(ncells, k[2], k[3])
				r.kind = changeOf(r.oa, r.na)
				seen[k] = r
			}
			if r.kind != "" {
				ch.Changes = append(ch.Changes, MapCellChange{Kind: r.kind, Destination: d, Client: c, Old: r.oa, New: r.na})
			}
		}
	}
	return ch
}

func destIndex(m *Map) map[string]int {
	out := make(map[string]int, len(m.Destinations))
	for _, d := range m.Destinations {
		out[d.ID] = d.Class
	}
	return out
}

func clientIndex(m *Map) map[string]int {
	out := make(map[string]int, len(m.Clients))
	for _, c := range m.Clients {
		out[c.ID] = c.Class
	}
	return out
}

// classOf is id's class, -2 when the map has no such ID (-1: not judged).
func classOf(ix map[string]int, id string) int {
	if c, ok := ix[id]; ok {
		return c
	}
	return -2
}

func answerAt(cells *CellIndex, d, c int) *Answer { return cells.ClassAnswer(d, c) }

func unionIDs[T any](first, second []T, id func(T) string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range [][]T{first, second} {
		for _, x := range l {
			if k := id(x); !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// changeOf is the kind of change from oa to na ("" for none); a missing
// answer counts as not allowed.
func changeOf(oa, na *Answer) string {
	allowed := func(a *Answer) bool { return a != nil && a.Decision == "ALLOW" }
	switch {
	case !allowed(oa) && allowed(na):
		return CellOpened
	case allowed(oa) && !allowed(na):
		return CellClosed
	case oa == nil || na == nil:
		return ""
	case itemKey(oa.DecidedBy) != itemKey(na.DecidedBy):
		return CellRule
	case oa.ShadowDecision != na.ShadowDecision || shadowKey(oa) != shadowKey(na):
		return CellShadow
	}
	return ""
}

func itemKey(it Item) string {
	k := it.Kind + "\x00" + it.Policy + "\x00" + it.Path + "\x00" + it.Action
	if it.Policy == DefaultPolicy {
		k += "\x00" + it.Match
	}
	if a := it.Authentication; a != nil {
		k += "\x00" + itemKey(*a)
	}
	return k
}

func shadowKey(a *Answer) string {
	if a.ShadowDecidedBy == nil {
		return ""
	}
	return itemKey(*a.ShadowDecidedBy)
}

// answerWords is an answer's decision and deciding item in one phrase.
func answerWords(a *Answer) string {
	if a == nil {
		return "not in this map"
	}
	s := a.Decision + " by " + a.DecidedBy.Words()
	if a.ShadowDecision != "" {
		s += "; shadow " + a.ShadowDecision
	}
	return s
}

// changeGroup is the changes of one destination that share kind, old and new
// answers: one line for all their clients.
type changeGroup struct {
	kind, dest, old, new string
	clients              []string
}

func (ch *MapChange) groups() []changeGroup {
	var out []changeGroup
	idx := map[string]int{}
	for _, c := range ch.Changes {
		g := changeGroup{kind: c.Kind, dest: c.Destination, old: answerWords(c.Old), new: answerWords(c.New)}
		k := g.kind + "\x00" + g.dest + "\x00" + g.old + "\x00" + g.new
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, g)
		}
		out[i].clients = append(out[i].clients, c.Client)
	}
	return out
}

func (ch *MapChange) counts() string {
	n := map[string]int{}
	for _, c := range ch.Changes {
		n[c.Kind]++
	}
	var parts []string
	for _, k := range []string{CellOpened, CellClosed, CellRule, CellShadow} {
		if n[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[k], k))
		}
	}
	if len(parts) == 0 {
		return "no destination × client pair changes"
	}
	return fmt.Sprintf("%d destination × client pairs change: %s", len(ch.Changes), strings.Join(parts, ", "))
}

// cellChangeMark is a change's mark in text: + opened, - closed, ~ otherwise.
func cellChangeMark(kind string) string {
	switch kind {
	case CellOpened:
		return "+"
	case CellClosed:
		return "-"
	}
	return "~"
}

func (ch *MapChange) mesh() string {
	if ch.New != nil && ch.New.Mesh != "" {
		return ch.New.Mesh
	}
	return ch.Old.Mesh
}

// WriteText writes the change: a line per destination and change, with its
// clients, what decided before and after.
func (ch *MapChange) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s access map change: %s\n", ch.mesh(), ch.counts())
	for _, g := range ch.groups() {
		fmt.Fprintf(&b, "\n%s %-14s %s\n    clients: %s\n    was: %s\n    now: %s\n", cellChangeMark(g.kind), g.kind, g.dest, clientList(g.clients, 8), g.old, g.new)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func clientList(cs []string, n int) string {
	if len(cs) <= n {
		return strings.Join(cs, ", ")
	}
	return strings.Join(cs[:n], ", ") + fmt.Sprintf(" and %d more", len(cs)-n)
}

// WriteCSV writes one row per changed pair.
func (ch *MapChange) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"change", "destination", "client", "old_decision", "old_policy", "old_path", "new_decision", "new_policy", "new_path"})
	side := func(a *Answer) []string {
		if a == nil {
			return []string{"", "", ""}
		}
		return []string{a.Decision, a.DecidedBy.Policy, a.DecidedBy.Path}
	}
	for _, c := range ch.Changes {
		row := append(append([]string{c.Kind, c.Destination, c.Client}, side(c.Old)...), side(c.New)...)
		_ = cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// WriteMarkdown writes the change for a pull request: a table of the changes,
// openings first.
func (ch *MapChange) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s access map: what this change does\n\n%s.\n", Cell(meshTitle(ch.mesh())), strings.ToUpper(ch.counts()[:1])+ch.counts()[1:])
	if len(ch.Changes) == 0 {
		_, err := io.WriteString(w, b.String())
		return err
	}
	b.WriteString("\n| change | destination | clients | before | after |\n| --- | --- | --- | --- | --- |\n")
	for _, k := range []string{CellOpened, CellClosed, CellRule, CellShadow} {
		for _, g := range ch.groups() {
			if g.kind != k {
				continue
			}
			kind := k
			if k == CellOpened {
				kind = "**opened**"
			}
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s |\n", kind, Cell(g.dest), Cell(clientList(g.clients, 8)), Cell(g.old), Cell(g.new))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteDot writes the change as a Graphviz digraph of the changed pairs:
// opened edges green, closed ones red and dashed, rule or shadow changes grey.
func (ch *MapChange) WriteDot(w io.Writer) error {
	g := newDotGraph()
	peers := map[string]MapDestination{}
	clients := map[string]MapClient{}
	for _, m := range []*Map{ch.Old, ch.New} {
		for _, d := range m.Destinations {
			peers[d.ID] = d
		}
		for _, c := range m.Clients {
			clients[c.ID] = c
		}
	}
	colors := map[string]string{CellOpened: "darkgreen", CellClosed: "red", CellRule: "grey40", CellShadow: "grey40"}
	for _, c := range ch.Changes {
		d, cl := peers[c.Destination], clients[c.Client]
		g.node(destNode(d), d.Peer.Namespace, d.Peer.Workload, false)
		g.node(clientNode(cl), clientNamespace(cl), clientLabel(cl), cl.Kind != ClientWorkload)
		g.edge(clientNode(cl), destNode(d), portOf(d)+" "+c.Kind, c.Kind == CellClosed, colors[c.Kind])
	}
	return g.write(w, ch.mesh()+" access map change: "+ch.counts())
}
