package access

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// NamespaceMap is the access map aggregated by namespace (`meshguard map --by
// namespace`, and markdown of a large map): for every namespace of
// destinations and every group of clients (a namespace of workloads, or a
// caller that is no workload: another service, another mesh, unauthenticated,
// a network), how many destination × client pairs there are and how many are
// allowed.
type NamespaceMap struct {
	Version int    `json:"version"`
	Mesh    string `json:"mesh"`
	By      string `json:"by"`
	// Destinations and Clients are the namespaces (and client groups) in order.
	Destinations []string        `json:"destinations"`
	Clients      []string        `json:"clients"`
	Cells        []NamespaceCell `json:"cells"`
	Notes        []string        `json:"notes,omitempty"`
	// Note is said above the table (why markdown aggregated); not in JSON.
	Note string `json:"-"`
}

// NamespaceCell counts the pairs of one destination namespace and client
// group: Allowed by the enforced rules, ShadowAllowed by the shadow rules
// where there are some (else as enforced), NotJudged past the bound.
type NamespaceCell struct {
	Destination   string `json:"destination"`
	Client        string `json:"client"`
	Pairs         int    `json:"pairs"`
	Allowed       int    `json:"allowed"`
	ShadowAllowed int    `json:"shadowAllowed"`
	NotJudged     int    `json:"notJudged,omitempty"`
}

// ClientGroup is the group of a client in a NamespaceMap: its namespace, or
// its ID for a caller that has none (another service, mesh, network).
func (c MapClient) ClientGroup() string {
	if (c.Kind == ClientWorkload || c.Kind == ClientNamed) && c.Peer.Namespace != "" {
		return c.Peer.Namespace
	}
	return c.ID
}

// ByNamespace aggregates m. It counts by class (namespace, class) pairs, so
// its cost follows the classes of each namespace, not destinations × clients.
func (m *Map) ByNamespace() *NamespaceMap {
	out := &NamespaceMap{Version: MapVersion, Mesh: m.Mesh, By: "namespace", Cells: []NamespaceCell{}, Notes: m.Notes}
	type key struct {
		group string
		class int
	}
	count := func(keys []key) ([]string, map[string][]key, map[key]int) {
		n := map[key]int{}
		by := map[string][]key{}
		var groups []string
		for _, k := range keys {
			if n[k] == 0 {
				if by[k.group] == nil {
					groups = append(groups, k.group)
				}
				by[k.group] = append(by[k.group], k)
			}
			n[k]++
		}
		return groups, by, n
	}
	var dk, ck []key
	for _, d := range m.Destinations {
		dk = append(dk, key{orNone(d.Peer.Namespace), d.Class})
	}
	for _, c := range m.Clients {
		ck = append(ck, key{c.ClientGroup(), c.Class})
	}
	dns, dby, dn := count(dk)
	cgs, cby, cn := count(ck)
	slices.Sort(dns)
	out.Destinations, out.Clients = dns, cgs
	cells := m.CellsByClass()
	for _, ns := range dns {
		for _, g := range cgs {
			nc := NamespaceCell{Destination: ns, Client: g}
			for _, d := range dby[ns] {
				for _, c := range cby[g] {
					pairs := dn[d] * cn[c]
					nc.Pairs += pairs
					cell := cells.At(d.class, c.class)
					if cell == nil || d.class < 0 {
						nc.NotJudged += pairs
						continue
					}
					a := cell.Answer
					if a.Decision == "ALLOW" {
						nc.Allowed += pairs
					}
					if a.ShadowDecision == "ALLOW" || (a.ShadowDecision == "" && a.Decision == "ALLOW") {
						nc.ShadowAllowed += pairs
					}
				}
			}
			out.Cells = append(out.Cells, nc)
		}
	}
	return out
}

// Words says a cell in a few characters: "all", "none", or "3/8".
func (c NamespaceCell) Words() string {
	s := strconv.Itoa(c.Allowed) + "/" + strconv.Itoa(c.Pairs)
	switch {
	case c.Pairs == 0:
		s = ""
	case c.Allowed == c.Pairs:
		s = "all"
	case c.Allowed == 0:
		s = "none"
	}
	if c.ShadowAllowed != c.Allowed {
		s += fmt.Sprintf(" (shadow %d)", c.ShadowAllowed)
	}
	if c.NotJudged > 0 {
		s += fmt.Sprintf(" (%d not judged)", c.NotJudged)
	}
	return s
}

// Legend says what NamespaceCell.Words mean.
const NamespaceLegend = "each cell: how many destination × client pairs are allowed (all, none, or allowed/pairs), and the shadow rules' count where it differs"

func (n *NamespaceMap) cell(i, j int) NamespaceCell { return n.Cells[i*len(n.Clients)+j] }

// WriteText writes the aggregation as a table: destination namespaces down,
// client groups across (numbered, listed above).
func (n *NamespaceMap) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s access map by namespace: %d destination namespaces, %d client groups\n%s\n\nclient groups:\n", n.Mesh, len(n.Destinations), len(n.Clients), NamespaceLegend)
	for j, g := range n.Clients {
		fmt.Fprintf(&b, "  G%-3d %s\n", j+1, g)
	}
	width := len("namespace")
	for _, ns := range n.Destinations {
		width = max(width, len(ns))
	}
	colw := make([]int, len(n.Clients))
	for j := range n.Clients {
		colw[j] = len("G" + strconv.Itoa(j+1))
		for i := range n.Destinations {
			colw[j] = max(colw[j], len(n.cell(i, j).Words()))
		}
	}
	fmt.Fprintf(&b, "\n%-*s", width, "namespace")
	for j := range n.Clients {
		fmt.Fprintf(&b, "  %-*s", colw[j], "G"+strconv.Itoa(j+1))
	}
	b.WriteString("\n")
	for i, ns := range n.Destinations {
		fmt.Fprintf(&b, "%-*s", width, ns)
		for j := range n.Clients {
			fmt.Fprintf(&b, "  %-*s", colw[j], n.cell(i, j).Words())
		}
		b.WriteString("\n")
	}
	for _, note := range n.Notes {
		fmt.Fprintf(&b, "note: %s\n", note)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteCSV writes one row per destination namespace × client group.
func (n *NamespaceMap) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"destination_namespace", "client_group", "pairs", "allowed", "shadow_allowed", "not_judged"})
	for _, c := range n.Cells {
		_ = cw.Write([]string{c.Destination, c.Client, strconv.Itoa(c.Pairs), strconv.Itoa(c.Allowed), strconv.Itoa(c.ShadowAllowed), strconv.Itoa(c.NotJudged)})
	}
	cw.Flush()
	return cw.Error()
}

// WriteMarkdown writes the aggregation as one table.
func (n *NamespaceMap) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s access map by namespace\n\n", Cell(meshTitle(n.Mesh)))
	if n.Note != "" {
		fmt.Fprintf(&b, "%s\n\n", Cell(n.Note))
	}
	fmt.Fprintf(&b, "Rows: namespaces of destinations; columns: namespaces of clients and the callers that are no workload. %s.\n\n| namespace |", strings.ToUpper(NamespaceLegend[:1])+NamespaceLegend[1:])
	for _, g := range n.Clients {
		fmt.Fprintf(&b, " `%s` |", Cell(g))
	}
	b.WriteString("\n| --- |" + strings.Repeat(" :-: |", len(n.Clients)) + "\n")
	for i, ns := range n.Destinations {
		fmt.Fprintf(&b, "| `%s` |", Cell(ns))
		for j := range n.Clients {
			fmt.Fprintf(&b, " %s |", Cell(n.cell(i, j).Words()))
		}
		b.WriteString("\n")
	}
	for _, note := range n.Notes {
		fmt.Fprintf(&b, "\n> %s\n", Cell(note))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// orNone names the namespace of a destination that has none (a Universal
// Dataplane).
func orNone(ns string) string {
	if ns == "" {
		return "(no namespace)"
	}
	return ns
}

// WriteDot writes the aggregation as a Graphviz digraph: a node per namespace
// or client group, an edge for every pair of them with some pair allowed
// (dashed when only the shadow rules allow some), labelled allowed/pairs.
func (n *NamespaceMap) WriteDot(w io.Writer) error {
	g := newDotGraph()
	for _, ns := range n.Destinations {
		g.node("ns:"+ns, "", ns, false)
	}
	for _, c := range n.Clients {
		g.node("ns:"+c, "", c, false)
	}
	for _, c := range n.Cells {
		if c.Allowed == 0 && c.ShadowAllowed == 0 {
			continue
		}
		g.edge("ns:"+c.Client, "ns:"+c.Destination, fmt.Sprintf("%d/%d", c.Allowed, c.Pairs), c.Allowed == 0, "")
	}
	return g.write(w, n.Mesh+" access map by namespace: edges carry allowed/pairs; dashed: allowed by the shadow rules only")
}
