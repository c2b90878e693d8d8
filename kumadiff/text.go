package kumadiff

import (
	"fmt"
	"strings"

	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/kumainspect"
)

// shownProxies is how many proxies a line names before "and N more".
const shownProxies = 3

// maxValue is the longest value a line shows; longer ones are cut with "…"
// (-o json has them whole).
const maxValue = 80

var marks = map[string]string{Changed: "~", Added: "+", Removed: "-"}

// Summary says in one line how many changes on how many proxies.
func (r Report) Summary() string {
	if r.OldProxies+r.NewProxies == 0 {
		return "no proxy (Dataplane) in either set, nothing to compare"
	}
	s := fmt.Sprintf("%s on %d of %d proxies compared", plural(len(r.Changes), "change", "changes"), r.Changed, r.Compared)
	if len(r.Changes) == 0 {
		s = fmt.Sprintf("no proxy's configuration changes (%d compared)", r.Compared)
	}
	if n := len(r.AddedProxies) + len(r.RemovedProxies); n > 0 {
		s += fmt.Sprintf("; %d added, %d removed", len(r.AddedProxies), len(r.RemovedProxies))
	}
	if len(r.NotCompared) > 0 || r.Limit != "" {
		s += "; not every proxy compared"
	}
	return s
}

// Line says a change in one line: field, old → new, where, and of which proxies.
func (c Change) Line() string {
	return c.what() + " of " + c.ProxiesText()
}

// Counted is Line with the number of proxies only, first, for where names do
// not fit (an admission warning): "5 proxies: MeshTimeout connectionTimeout: …".
func (c Change) Counted() string {
	return plural(len(c.Proxies), "proxy", "proxies") + ": " + strings.Replace(c.what(), " on the ", " on ", 1)
}

// what is the change and its place: "MeshTimeout connectionTimeout: 5s → 2s on
// the outbound to …".
func (c Change) what() string {
	var what string
	switch c.Change {
	case Added:
		what = "added " + cut(kumainspect.Inline(c.New))
	case Removed:
		what = "removed (was " + cut(kumainspect.Inline(c.Old)) + ")"
	default:
		what = cut(kumainspect.Inline(c.Old)) + " → " + cut(kumainspect.Inline(c.New))
	}
	field := c.Field
	if c.Rule != "" {
		field += " (" + c.Rule + ")"
	}
	return fmt.Sprintf("%s %s: %s on %s", c.Kind, field, what, c.Where)
}

// ProxiesText names the proxies, abbreviated after a few: "5 proxies in shop,
// web: shop/web-1, shop/web-2, shop/web-3 and 2 more".
func (c Change) ProxiesText() string {
	s := plural(len(c.Proxies), "proxy", "proxies")
	if len(c.Namespaces) > 0 {
		s += " in " + strings.Join(c.Namespaces, ", ")
	}
	shown := c.Proxies
	if len(shown) > shownProxies {
		shown = shown[:shownProxies]
	}
	s += ": " + strings.Join(shown, ", ")
	if more := len(c.Proxies) - len(shown); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

// Deciders says which items set the field now and before.
func (c Change) Deciders() string {
	now, before := itemText(c.After), itemText(c.Before)
	switch {
	case c.Change == Removed:
		return "was set by " + before
	case c.Change == Added:
		return "set by " + now
	case now == before:
		return "set by " + now
	}
	return "set by " + now + ", before by " + before
}

func itemText(i *access.Item) string {
	if i == nil {
		return "(merged from several items)"
	}
	return strings.TrimSpace(i.Kind + " " + i.Policy + " " + i.Path)
}

// WriteText writes the report's details as `meshguard diff` prints them.
func (r Report) WriteText(b *strings.Builder) {
	if len(r.Changes) > 0 {
		b.WriteString("\nKuma proxy configuration (merged conf of every policy kind but MeshTrafficPermission)\n")
	}
	for _, c := range r.Changes {
		fmt.Fprintf(b, "  %s %s\n      %s\n", marks[c.Change], c.Line(), c.Deciders())
	}
	r.writeLists(b, "  ", "")
}

// WriteMarkdown writes the report's details as a heading and a table.
func (r Report) WriteMarkdown(b *strings.Builder) {
	if len(r.Changes) == 0 && len(r.AddedProxies)+len(r.RemovedProxies)+len(r.NotCompared) == 0 && r.Limit == "" {
		return
	}
	b.WriteString("\n#### Kuma: proxy configuration\n\nEvery policy kind's merged conf (but MeshTrafficPermission's) on each proxy of both sets; proxies that change alike share a row.\n")
	if len(r.Changes) > 0 {
		b.WriteString("\n| policy | field | before | after | where | proxies | set by |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	}
	for _, c := range r.Changes {
		old, now := "", ""
		if c.Old != nil {
			old = "`" + cut(kumainspect.Inline(c.Old)) + "`"
		}
		if c.New != nil {
			now = "`" + cut(kumainspect.Inline(c.New)) + "`"
		}
		field := "`" + c.Field + "`"
		if c.Rule != "" {
			field += " (" + c.Rule + ")"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", c.Kind, access.Cell(field), access.Cell(old), access.Cell(now),
			access.Cell(strings.TrimPrefix(c.Where, "the ")), access.Cell(c.ProxiesText()), access.Cell(c.Deciders()))
	}
	b.WriteString("\n")
	r.writeLists(b, "- ", "\n")
}

// writeLists writes the proxies of one set only, those not compared and the limit.
func (r Report) writeLists(b *strings.Builder, indent, end string) {
	lists := []struct {
		what  string
		items []string
	}{
		{"only in the new set (not compared)", r.AddedProxies},
		{"only in the old set (not compared)", r.RemovedProxies},
		{"not compared", r.NotCompared},
	}
	wrote := false
	for _, l := range lists {
		if len(l.items) == 0 {
			continue
		}
		shown := l.items
		if len(shown) > 10 {
			shown = shown[:10]
		}
		line := fmt.Sprintf("%s %s: %s", plural(len(l.items), "proxy", "proxies"), l.what, strings.Join(shown, "; "))
		if len(l.items) > len(shown) {
			line += fmt.Sprintf(" and %d more", len(l.items)-len(shown))
		}
		fmt.Fprintf(b, "%s%s\n", indent, line)
		wrote = true
	}
	if r.Limit != "" {
		fmt.Fprintf(b, "%s! %s\n", indent, r.Limit)
		wrote = true
	}
	if wrote {
		b.WriteString(end)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func cut(s string) string {
	if r := []rune(s); len(r) > maxValue {
		return string(r[:maxValue-1]) + "…"
	}
	return s
}
