package access

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The access map's text renderers: `meshguard map -o text` (a compact
// matrix), csv (one row per destination × client) and markdown (a matrix, or
// by namespace when large). Each reads the model only; none judges.

// Mark is a cell in one character: A allowed, . denied, a denied but the
// shadow rules allow, d allowed but the shadow rules deny, ? not judged.
func (c *MapCell) Mark() string {
	if c == nil {
		return "?"
	}
	a := c.Answer
	switch {
	case a.Decision == "ALLOW" && a.ShadowDecision == "DENY":
		return "d"
	case a.Decision == "ALLOW":
		return "A"
	case a.ShadowDecision == "ALLOW":
		return "a"
	}
	return "."
}

// MarkLegend says what the marks mean.
const MarkLegend = "A allowed, . denied, a denied but allowed by the shadow rules, d allowed but denied by the shadow rules, ? not judged"

// ClassMembers lists the members of each class, by class index.
func ClassMembers[T any](items []T, class func(T) int) [][]int {
	var out [][]int
	for i, it := range items {
		c := class(it)
		if c < 0 {
			continue
		}
		for len(out) <= c {
			out = append(out, nil)
		}
		out[c] = append(out[c], i)
	}
	return out
}

func (m *Map) clientClasses() [][]int {
	return ClassMembers(m.Clients, func(c MapClient) int { return c.Class })
}

func (m *Map) destinationClasses() [][]int {
	return ClassMembers(m.Destinations, func(d MapDestination) int { return d.Class })
}

// WriteText writes the map as a matrix: a line per destination, a column per
// client class (listed above it), then each destination class's deciding
// items.
func (m *Map) WriteText(w io.Writer) error {
	var b strings.Builder
	cols, rows := m.clientClasses(), m.destinationClasses()
	cells := m.CellsByClass()
	fmt.Fprintf(&b, "%s access map: %d destinations in %d classes, %d clients in %d classes\n%s\n", m.Mesh,
		len(m.Destinations), len(rows), len(m.Clients), len(cols), MarkLegend)
	b.WriteString("\nclient classes:\n")
	for k, members := range cols {
		fmt.Fprintf(&b, "  C%-3d %s\n", k+1, m.clientNames(members, 6))
	}
	width := len("destination")
	for _, d := range m.Destinations {
		width = max(width, len(d.ID))
	}
	fmt.Fprintf(&b, "\n%-*s  class", width, "destination")
	for k := range cols {
		fmt.Fprintf(&b, " %-3s", "C"+strconv.Itoa(k+1))
	}
	b.WriteString("\n")
	for _, d := range m.Destinations {
		fmt.Fprintf(&b, "%-*s  %-5s", width, d.ID, classWord("D", d.Class))
		for k := range cols {
			fmt.Fprintf(&b, " %-3s", cells.At(d.Class, k).Mark())
		}
		b.WriteString("\n")
	}
	b.WriteString("\ndeciding items:\n")
	for r := range rows {
		for _, g := range groupByItem(cells, r, len(cols)) {
			fmt.Fprintf(&b, "  D%-3d %-9s %s  %s\n", r+1, g.classes, g.decision, g.item)
		}
	}
	for _, n := range m.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func classWord(prefix string, c int) string {
	if c < 0 {
		return "-"
	}
	return prefix + strconv.Itoa(c+1)
}

// clientNames lists the first n members' IDs and how many more there are.
func (m *Map) clientNames(members []int, n int) string {
	var names []string
	for i, c := range members {
		if i == n {
			names = append(names, fmt.Sprintf("and %d more", len(members)-n))
			break
		}
		names = append(names, m.Clients[c].ID)
	}
	return strings.Join(names, ", ")
}

// itemGroup is the client classes of one destination class that one item
// decides alike.
type itemGroup struct {
	classes, decision, item string
}

// groupByItem lists, for destination class r, its client classes by deciding
// item (and shadow decision), in order of first class.
func groupByItem(cells *CellIndex, r, ncols int) []itemGroup {
	var out []itemGroup
	idx := map[string]int{}
	var ks [][]int
	for k := 0; k < ncols; k++ {
		c := cells.At(r, k)
		if c == nil {
			continue
		}
		dec := c.Answer.Decision
		if c.Answer.ShadowDecision != "" && c.Answer.ShadowDecision != dec {
			dec += " (shadow " + c.Answer.ShadowDecision + ")"
		}
		item := c.Answer.DecidedBy.Words()
		key := dec + "\x00" + item
		i, ok := idx[key]
		if !ok {
			i = len(out)
			idx[key] = i
			out = append(out, itemGroup{decision: dec, item: item})
			ks = append(ks, nil)
		}
		ks[i] = append(ks[i], k)
	}
	for i := range out {
		out[i].classes = classRanges(ks[i])
	}
	return out
}

// classRanges writes client classes as C1-C3,C5.
func classRanges(ks []int) string {
	var parts []string
	for i := 0; i < len(ks); {
		j := i
		for j+1 < len(ks) && ks[j+1] == ks[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, "C"+strconv.Itoa(ks[i]+1))
		} else {
			parts = append(parts, fmt.Sprintf("C%d-C%d", ks[i]+1, ks[j]+1))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// CSVHeader is the header row of WriteCSV, so a consumer can check the
// columns it reads.
func CSVHeader() []string {
	return []string{"destination", "destination_class", "client", "client_kind", "client_class", "decision", "shadow_decision",
		"kind", "policy", "path", "action", "file", "line", "shadow_policy", "shadow_path"}
}

// WriteCSV writes one row per destination × client (an unjudged pair with an
// empty decision).
func (m *Map) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	header := CSVHeader()
	if err := cw.Write(header); err != nil {
		return err
	}
	cells := m.CellsByClass()
	for _, d := range m.Destinations {
		for _, c := range m.Clients {
			row := []string{d.ID, classWord("D", d.Class), c.ID, c.Kind, classWord("C", c.Class)}
			if cell := cells.At(d.Class, c.Class); cell != nil {
				a := cell.Answer
				by := a.DecidedBy
				line := ""
				if by.Line > 0 {
					line = strconv.Itoa(by.Line)
				}
				row = append(row, a.Decision, a.ShadowDecision, by.Kind, by.Policy, by.Path, by.Action, by.File, line)
				if s := a.ShadowDecidedBy; s != nil {
					row = append(row, s.Policy, s.Path)
				} else {
					row = append(row, "", "")
				}
			} else {
				row = append(row, make([]string, len(header)-len(row))...)
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// MarkdownMaxRows and MarkdownMaxColumns are the largest matrix markdown
// writes whole; a larger map is written by namespace.
const (
	MarkdownMaxRows    = 40
	MarkdownMaxColumns = 12
)

// markdownMark is a cell's Mark as markdown shows it.
func markdownMark(mark string) string {
	switch mark {
	case "A":
		return "✅"
	case ".":
		return "⛔"
	case "a":
		return "⛔ (shadow ✅)"
	case "d":
		return "✅ (shadow ⛔)"
	}
	return mark
}

// WriteMarkdown writes the map for a pull request or job summary: the matrix
// when it is small (destinations × client classes), else the namespace
// aggregation (ByNamespace), then each destination class's deciding items.
func (m *Map) WriteMarkdown(w io.Writer) error {
	cols, rows := m.clientClasses(), m.destinationClasses()
	if len(m.Destinations) > MarkdownMaxRows || len(cols) > MarkdownMaxColumns {
		ns := m.ByNamespace()
		ns.Note = fmt.Sprintf("%d destinations × %d client classes is too large for one table: by namespace (meshguard map -o csv or -o json has every pair).", len(m.Destinations), len(cols))
		return ns.WriteMarkdown(w)
	}
	var b strings.Builder
	cells := m.CellsByClass()
	fmt.Fprintf(&b, "### %s access map\n\n%d destinations in %d classes, %d clients in %d classes.\n\n", Cell(meshTitle(m.Mesh)), len(m.Destinations), len(rows), len(m.Clients), len(cols))
	for k, members := range cols {
		fmt.Fprintf(&b, "- **C%d**: %s\n", k+1, Cell(m.clientNames(members, 8)))
	}
	b.WriteString("\n| destination |")
	for k := range cols {
		fmt.Fprintf(&b, " C%d |", k+1)
	}
	b.WriteString("\n| --- |" + strings.Repeat(" :-: |", len(cols)) + "\n")
	for _, d := range m.Destinations {
		fmt.Fprintf(&b, "| `%s` |", Cell(d.ID))
		for k := range cols {
			fmt.Fprintf(&b, " %s |", markdownMark(cells.At(d.Class, k).Mark()))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n<details><summary>Deciding items</summary>\n\n| destinations | clients | decision | decided by |\n| --- | --- | --- | --- |\n")
	for r, members := range rows {
		var ids []string
		for _, i := range members {
			ids = append(ids, "`"+Cell(m.Destinations[i].ID)+"`")
		}
		for _, g := range groupByItem(cells, r, len(cols)) {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", strings.Join(ids, " "), g.classes, g.decision, Cell(g.item))
		}
	}
	b.WriteString("\n</details>\n")
	for _, n := range m.Notes {
		fmt.Fprintf(&b, "\n> %s\n", Cell(n))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func meshTitle(mesh string) string {
	switch mesh {
	case "kuma":
		return "Kuma"
	case "linkerd":
		return "Linkerd"
	}
	return mesh
}
