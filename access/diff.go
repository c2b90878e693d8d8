package access

import (
	"fmt"
	"strings"
)

// What happened to a class of clients between two sets of policies, for every
// mesh: the `change` of a diff's JSON and the mark its text shows.
const (
	ChangeWidened  = "widened"
	ChangeNarrowed = "narrowed"
	ChangeShadow   = "shadow"
)

// DiffSection is one unit of a diff (a Kuma proxy group, a Linkerd Server or
// default policy) in the words its engine chose, so that one renderer writes every
// mesh's diff: text for terminals, markdown for pull requests.
type DiffSection struct {
	// Mesh is "Kuma" or "Linkerd", as the markdown headings name it.
	Mesh string
	// Title names the unit ("Server shop/web", a group's scope); About is what the
	// text heading says of it in parentheses before the class count, Sentence the
	// markdown line under its heading.
	Title, About, Sentence string
	// Note is said after the heading (a Kuma group's identity); "" for none.
	Note string
	// Classes is how many client classes were compared.
	Classes int
	// Incomplete says why the unit was not compared; it then has no Changes.
	Incomplete string
	Changes    []DiffChange
}

// DiffChange is one class of clients whose access changed, with its decision
// before and after in words.
type DiffChange struct {
	Kind     string
	Clients  []string
	Old, New string
}

var changeMarks = map[string]string{ChangeWidened: "+", ChangeNarrowed: "-", ChangeShadow: "~"}

func clientsText(cs []string) string {
	if len(cs) == 0 {
		return "every client"
	}
	return strings.Join(cs, "; ")
}

// WriteText writes the section as `meshguard diff` prints it.
func (s DiffSection) WriteText(b *strings.Builder) {
	fmt.Fprintf(b, "\n%s (%s; %d client classes compared)\n", s.Title, s.About, s.Classes)
	if s.Note != "" {
		fmt.Fprintf(b, "  identity: %s\n", s.Note)
	}
	if s.Incomplete != "" {
		fmt.Fprintf(b, "  ! not compared: %s\n", s.Incomplete)
	}
	for _, c := range s.Changes {
		fmt.Fprintf(b, "  %s %-9s %s\n  %11s was %s\n  %11s now %s\n", changeMarks[c.Kind], c.Kind, clientsText(c.Clients), "", c.Old, "", c.New)
	}
}

// WriteMarkdown writes the section as a heading and a table of its changes.
func (s DiffSection) WriteMarkdown(b *strings.Builder) {
	fmt.Fprintf(b, "\n#### %s: %s\n\n%s\n", s.Mesh, Cell(s.Title), Cell(s.Sentence))
	if s.Note != "" {
		fmt.Fprintf(b, "\n%s.\n", s.Note)
	}
	if s.Incomplete != "" {
		fmt.Fprintf(b, "\nNot compared: %s.\n", s.Incomplete)
		return
	}
	b.WriteString("\n| change | clients | before | after |\n| --- | --- | --- | --- |\n")
	for _, c := range s.Changes {
		kind := c.Kind
		if kind == ChangeWidened {
			kind = "**widened**"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", kind, Cell(code(c.Clients)), Cell(c.Old), Cell(c.New))
	}
}

// Cell escapes a markdown table cell.
func Cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func code(parts []string) string {
	if len(parts) == 0 {
		return "every client"
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = "`" + strings.ReplaceAll(p, "`", "'") + "`"
	}
	return strings.Join(out, " and ")
}
