package kumaauthz

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/internal/warnline"
)

// What a shortened summary line points to for the rest, the shorter when the
// longer leaves out more: the webhook's audit annotation holds the whole preview
// (`meshguard preview` too, and the last line says so).
const (
	whereLong  = "(see the rbac-preview annotation)"
	whereShort = "(see rbac-preview)"
)

// Ranks of a group's statements: the lower, the sooner a statement gets a line
// when there are more than the warnings can hold. Who is allowed now ranks with
// what the admitted policy changes: together they say who is allowed and denied.
const (
	rankHead     = 0
	rankEffect   = 1
	rankAllowed  = 1
	rankFindings = 2
	rankShadow   = 3
	rankPolicies = 4
	rankChain    = 5
)

// statement is one thing the summary can say about a group, over at most lines
// lines.
type statement struct {
	rank  int
	line  warnline.Line
	lines int
}

// render writes s over at most max lines.
func (s statement) render(max int) []string {
	return s.line.Split(warnline.Width, min(max, s.lines), whereLong, whereShort)
}

// count is len(s.render(s.lines)), measured without rendering.
func (s statement) count() int {
	return s.line.SplitCount(warnline.Width, s.lines)
}

// Summary gives at most five one-line statements (≤ 120 bytes, no newlines, no
// name cut) about a preview, short enough for admission warnings: which proxies,
// which clients they allow, deny and shadow, findings, policies and merge order.
func Summary(p Preview) []string {
	return AdmissionLines([]Preview{p}, "", 5)
}

// AdmissionLines gives at most maxLines warning lines (each ≤ warnline.Width
// bytes, one line, every name whole or visibly elided) about previews, the groups
// the admitted policy incoming ("namespace/name"; "" for none) takes part in. For
// each group they say, most important first: which proxies and how (form,
// enforced, shadow); which clients incoming newly allows or denies, and who is
// allowed now; the findings; shadow rules; the merged policies; the merge order. When
// that is more than maxLines, the statements of every group are given lines rank
// by rank, and the last line says how much was left to the rbac-preview audit
// annotation and `meshguard preview`. Groups past the first few, which would get
// no more than their first line, are named together on one line instead.
func AdmissionLines(previews []Preview, incoming string, maxLines int) []string {
	var others []Preview
	if limit := max(1, (maxLines-2)/2); len(previews) > limit+1 {
		previews, others = previews[:limit], previews[limit:]
	}
	// The statements are measured first and rendered only once they get lines:
	// most of a large group's never do.
	var all []statement
	var full []int // the lines of each statement rendered whole
	want := 0
	for _, p := range previews {
		for _, s := range statements(p, incoming) {
			all = append(all, s)
			full = append(full, s.count())
			want += full[len(full)-1]
		}
	}
	if want <= maxLines && len(others) == 0 {
		out := make([]string, 0, want)
		for _, s := range all {
			out = append(out, s.render(s.lines)...)
		}
		return out
	}
	// Rank by rank, every group's statements get their lines.
	allot := make([]int, len(all))
	budget := maxLines - 1 // the last line says what was left out
	if len(others) > 0 {
		budget-- // and one names the other groups
	}
	for rank := rankHead; rank <= rankChain; rank++ {
		for i, s := range all {
			if s.rank == rank && budget > 0 {
				allot[i] = min(full[i], budget)
				budget -= allot[i]
			}
		}
	}
	var out []string
	left := 0
	for i, s := range all {
		var got []string
		switch {
		case allot[i] == full[i]:
			got = s.render(s.lines)
		case allot[i] > 0:
			got = s.render(allot[i])
		}
		out = append(out, got...)
		left += full[i] - len(got)
	}
	what := plural(left, "more line", "more lines")
	if len(others) > 0 {
		scopes := make([]string, len(others))
		for i, p := range others {
			scopes[i] = scopeLine(p, "").Fit(warnline.Width / 2)
		}
		out = append(out, warnline.Line{Lead: "also in " + plural(len(others), "more proxy group", "more proxy groups") + ": ",
			Items: scopes, Sep: "; "}.Fit(warnline.Width, whereLong, whereShort))
		what = plural(len(others), "more group", "more groups")
		if left > 0 {
			what = plural(left, "more line", "more lines") + " and " + what
		}
	}
	if left > 0 || len(others) > 0 {
		out = append(out, warnline.Text("rbac-preview: "+what+
			" in the rbac-preview audit annotation; `meshguard preview` shows all", warnline.Width))
	}
	return out
}

// statements are what the summary can say about p, in rank order, with incoming's
// effect when incoming is one of p's policies.
func statements(p Preview, incoming string) []statement {
	out := []statement{{rank: rankHead, line: headLine(p), lines: 1}}
	mine := false
	for _, ref := range p.Policies {
		mine = mine || (incoming != "" && ref == incoming)
	}
	var v view
	switch p.Form {
	case FormSkipped:
	case FormMatcher:
		v = matcherView(p, incoming)
	default:
		v = fromView(p, incoming)
	}
	if mine && p.Form != FormSkipped {
		out = append(out, effectLines(incoming, v.inc, v.matcher)...)
	}
	out = append(out, findingLines(p)...)
	if p.Form != FormSkipped {
		out = append(out, v.lines()...)
	}
	if n := len(p.Policies) + p.Hidden; n > 0 {
		lead := "policy: "
		if n > 1 {
			lead = "merges " + strconv.Itoa(n) + " policies, in order: "
		}
		l := warnline.Line{Lead: lead, Items: p.Policies}
		if p.Hidden > 0 {
			if len(p.Policies) > 0 {
				l.Lead = "merges " + strconv.Itoa(n) + " policies; in order, of those named here: "
				l.Tail = "; and " + plural(p.Hidden, "policy", "policies") + " in other namespaces"
			} else {
				l.Lead = "merges " + plural(p.Hidden, "policy", "policies") + " in other namespaces"
			}
		}
		out = append(out, statement{rank: rankPolicies, lines: 1, line: l})
	}
	if len(v.chain) > 0 {
		l := warnline.Line{Lead: "last match wins: ", Cont: "last match wins, continued: ", Items: v.chain, Sep: " > "}
		if v.never > 0 {
			l.Tail = " (" + plural(v.never, "item never decides", "items never decide") + ")"
		}
		out = append(out, statement{rank: rankChain, lines: 3, line: l})
	}
	slices.SortStableFunc(out, func(a, b statement) int { return cmp.Compare(a.rank, b.rank) })
	return out
}

// headLine says which proxies the group is, its form and whether it has shadow
// rules: "RBAC Dataplanes with labels app=backend in namespace backend-ns of mesh
// default (compact; enforced)".
func headLine(p Preview) warnline.Line {
	mode := "enforced"
	switch {
	case p.Form == FormSkipped:
		mode = "not compiled here"
	case p.RBAC != nil && (p.RBAC.ShadowRules != nil || p.RBAC.ShadowMatcher != nil),
		p.HTTPRBAC != nil && (p.HTTPRBAC.ShadowRules != nil || p.HTTPRBAC.ShadowMatcher != nil):
		mode = "enforced + shadow rules"
	}
	l := scopeLine(p, " ("+string(p.Form)+"; "+mode+")")
	l.Lead = "RBAC " + l.Lead
	return l
}

// scopeLine is p's scope with its tags or labels as the list (and tail after it).
func scopeLine(p Preview, tail string) warnline.Line {
	scope := p.Scope
	if scope == "" {
		scope = p.Target.Scope()
	}
	if ts := tagString(p.Target.Tags); ts != "" {
		if i := strings.Index(scope, ts); i >= 0 {
			return warnline.Line{Lead: scope[:i], Items: strings.Split(ts, ","), Tail: scope[i+len(ts):] + tail}
		}
	}
	return warnline.Line{Lead: scope + tail}
}

// findingLines are the group's MG2xx findings and compile notes: MG202 (every
// client denied) first, then one line per code listing the items it is about.
func findingLines(p Preview) []statement {
	byCode := map[string][]string{}
	var codes []string
	for _, f := range p.Findings {
		if _, ok := byCode[f.Origin]; !ok {
			codes = append(codes, f.Origin)
		}
		where, _ := f.BadValue.(string)
		if f.Field != "" {
			where += " " + f.Field
		}
		byCode[f.Origin] = append(byCode[f.Origin], strings.TrimSpace(where))
	}
	var out []statement
	add := func(lead string, items []string) {
		out = append(out, statement{rank: rankFindings, lines: 1, line: warnline.Line{Lead: lead, Items: items}})
	}
	matcher := p.Form == FormMatcher
	if len(byCode[CodeDenyAll]) > 0 {
		add(CodeDenyAll+" these proxies deny every client: no allow is left once the later denies apply", nil)
	}
	for _, code := range codes {
		l := byCode[code]
		switch code {
		case CodeDenyAll:
		case CodeDeadItem:
			why := "later items cover them"
			switch {
			case matcher && len(l) == 1:
				why = "a deny matcher covers it"
			case matcher:
				why = "deny matchers cover them"
			case len(l) == 1:
				why = "a later item covers it"
			}
			add(CodeDeadItem+" "+plural(len(l), "item never decides", "items never decide")+" ("+why+"): ", l)
		case CodeAllowAll:
			add(CodeAllowAll+" every client in mesh "+p.Target.Mesh+" may reach every proxy of the mesh: ", l)
		default:
			add(code+": ", l)
		}
	}
	if len(p.Warnings) > 0 {
		notes := make([]string, len(p.Warnings))
		for i, w := range p.Warnings {
			notes[i] = w
			if len("note: "+w) > warnline.Width {
				notes[i] = firstClause(w)
			}
		}
		out = append(out, statement{rank: rankFindings, lines: 2, line: warnline.Line{
			Lead: "note: ", Cont: "note, continued: ", Items: notes, Sep: "; "}})
	}
	return out
}

// firstClause is a compile note up to its first colon or semicolon: the point,
// without the explanation that follows (for notes longer than a line).
func firstClause(w string) string {
	if i := strings.IndexAny(w, ":;"); i > 0 {
		return strings.TrimSpace(w[:i])
	}
	return w
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// dedupe removes repeated strings, keeping the first.
func dedupe(l []string) []string {
	seen := make(map[string]bool, len(l))
	out := l[:0]
	for _, s := range l {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// clientWords describes the clients a `from` targetRef selects.
func clientWords(ref *api.TargetRef, localMesh string) string {
	if ref == nil {
		return "?"
	}
	s := "all clients"
	switch ref.Kind {
	case api.RefMeshService: // TagView is the service tag alone
		s = api.ServiceTag + "=" + ref.Name
	case api.RefMeshSubset: // TagView is the tags
		if len(ref.Tags) > 0 {
			s = tagString(ref.Tags)
		}
	default:
		if tags := ref.TagView(); len(tags) > 0 {
			s = tagString(tags)
		}
	}
	if ref.Mesh != "" && ref.Mesh != localMesh {
		s += " of mesh " + ref.Mesh
	}
	return s
}

func matcherWords(it PreviewItem) string {
	var parts []string
	if it.SpiffeID != nil {
		if it.SpiffeID.Type == "Prefix" {
			parts = append(parts, it.SpiffeID.Value+"*")
		} else {
			parts = append(parts, it.SpiffeID.Value)
		}
	}
	if it.SNI != nil {
		parts = append(parts, "sni "+it.SNI.Value)
	}
	if it.Method != "" {
		parts = append(parts, it.Method)
	}
	if it.RequestPath != nil {
		parts = append(parts, it.RequestPath.Value)
	}
	switch {
	case itemEmpty(it):
		return "no client (a matcher without spiffeID or sni)"
	case it.SpiffeID == nil:
		parts = append([]string{"any client"}, parts...)
	}
	return strings.Join(parts, " ")
}
