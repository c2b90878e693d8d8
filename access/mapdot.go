package access

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// WriteDot writes the map as a Graphviz digraph: a node per workload (a
// destination's workload, a client workload or ServiceAccount), namespaces as
// clusters, callers that are no workload outside them; an edge from client to
// destination for each pair the enforced rules allow (solid) or only the
// shadow rules allow (dashed), labelled with the ports.
func (m *Map) WriteDot(w io.Writer) error {
	g := newDotGraph()
	for _, d := range m.Destinations {
		g.node(destNode(d), d.Peer.Namespace, d.Peer.Workload, false)
	}
	for _, c := range m.Clients {
		g.node(clientNode(c), clientNamespace(c), clientLabel(c), clientNamespace(c) == "")
	}
	cells := m.CellsByClass()
	for _, d := range m.Destinations {
		for _, c := range m.Clients {
			cell := cells.At(d.Class, c.Class)
			if cell == nil {
				continue
			}
			switch cell.Mark() {
			case "A", "d":
				g.edge(clientNode(c), destNode(d), portOf(d), false, "")
			case "a":
				g.edge(clientNode(c), destNode(d), portOf(d), true, "")
			}
		}
	}
	return g.write(w, m.Mesh+" access map: solid edges are allowed, dashed ones allowed by the shadow rules only")
}

func destNode(d MapDestination) string {
	if d.Peer.Workload == "" {
		return d.ID
	}
	return d.Peer.Namespace + "/" + d.Peer.Workload
}

func clientNode(c MapClient) string {
	if c.Kind == ClientWorkload && c.Peer.Workload != "" {
		return c.Peer.Namespace + "/" + c.Peer.Workload
	}
	if serviceAccount(c) {
		return c.Peer.Namespace + "/ServiceAccount/" + c.Peer.Name
	}
	return c.ID
}

// serviceAccount reports whether c is a Linkerd ServiceAccount of the input
// (a workload's, or one the policies name).
func serviceAccount(c MapClient) bool {
	return (c.Kind == ClientWorkload || c.Kind == ClientNamed) && c.Peer.Identity != ""
}

func clientNamespace(c MapClient) string {
	if c.Kind != ClientWorkload && !serviceAccount(c) {
		return ""
	}
	return c.Peer.Namespace
}

func clientLabel(c MapClient) string {
	switch {
	case c.Kind == ClientWorkload && c.Peer.Workload != "":
		return c.Peer.Workload
	case serviceAccount(c):
		return "ServiceAccount/" + c.Peer.Name
	}
	return c.ID
}

func portOf(d MapDestination) string {
	if d.Peer.Section != "" {
		return d.Peer.Section
	}
	return d.Peer.Port
}

// dotGraph collects nodes by namespace and edges with their ports.
type dotGraph struct {
	nodes    map[string]bool
	byNS     map[string][]string
	outside  []string
	labels   map[string]string
	edges    map[[2]string]*dotEdge
	edgeKeys [][2]string
}

type dotEdge struct {
	ports          []string
	dashed         bool
	color, comment string
}

func newDotGraph() *dotGraph {
	return &dotGraph{nodes: map[string]bool{}, byNS: map[string][]string{}, labels: map[string]string{}, edges: map[[2]string]*dotEdge{}}
}

func (g *dotGraph) node(id, ns, label string, outside bool) {
	if g.nodes[id] {
		return
	}
	g.nodes[id], g.labels[id] = true, label
	if outside || ns == "" {
		g.outside = append(g.outside, id)
		return
	}
	g.byNS[ns] = append(g.byNS[ns], id)
}

// edge adds a port to the edge from → to; an edge is dashed only while every
// port of it is.
func (g *dotGraph) edge(from, to, port string, dashed bool, color string) {
	k := [2]string{from, to}
	e := g.edges[k]
	if e == nil {
		e = &dotEdge{dashed: dashed, color: color}
		g.edges[k] = e
		g.edgeKeys = append(g.edgeKeys, k)
	}
	e.dashed = e.dashed && dashed
	if port != "" && !slices.Contains(e.ports, port) {
		e.ports = append(e.ports, port)
	}
}

func (g *dotGraph) write(w io.Writer, title string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "// %s\ndigraph meshguard_map {\n  rankdir=LR;\n  node [shape=box, fontsize=10];\n  edge [fontsize=9];\n", title)
	nss := make([]string, 0, len(g.byNS))
	for ns := range g.byNS {
		nss = append(nss, ns)
	}
	slices.Sort(nss)
	for i, ns := range nss {
		fmt.Fprintf(&b, "  subgraph cluster_%d {\n    label=%s;\n", i, strconv.Quote(ns))
		for _, id := range g.byNS[ns] {
			fmt.Fprintf(&b, "    %s [label=%s];\n", strconv.Quote(id), strconv.Quote(g.labels[id]))
		}
		b.WriteString("  }\n")
	}
	for _, id := range g.outside {
		fmt.Fprintf(&b, "  %s [label=%s, shape=ellipse, style=dashed];\n", strconv.Quote(id), strconv.Quote(g.labels[id]))
	}
	for _, k := range g.edgeKeys {
		e := g.edges[k]
		attrs := []string{"label=" + strconv.Quote(strings.Join(e.ports, ","))}
		if e.dashed {
			attrs = append(attrs, "style=dashed")
		}
		if e.color != "" {
			attrs = append(attrs, "color="+e.color, "fontcolor="+e.color)
		}
		fmt.Fprintf(&b, "  %s -> %s [%s];\n", strconv.Quote(k[0]), strconv.Quote(k[1]), strings.Join(attrs, ", "))
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}
