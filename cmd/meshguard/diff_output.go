package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumaauthz"
	"github.com/meshguard/meshguard/linkerdauthz"
)

// diffReport is what `meshguard diff` prints; its JSON form is the -o json
// document (docs/diff.md describes it).
type diffReport struct {
	Old     string                    `json:"old"`
	New     string                    `json:"new"`
	Widens  bool                      `json:"widens"`
	Kuma    []kumaauthz.GroupDiff     `json:"kuma"`
	Linkerd []linkerdauthz.ServerDiff `json:"linkerd"`
}

// finish sets Widens and makes empty lists [] rather than null.
func (r *diffReport) finish() {
	if r.Kuma == nil {
		r.Kuma = []kumaauthz.GroupDiff{}
	}
	if r.Linkerd == nil {
		r.Linkerd = []linkerdauthz.ServerDiff{}
	}
	for i, g := range r.Kuma {
		r.Widens = r.Widens || g.Widens()
		if g.Changes == nil {
			r.Kuma[i].Changes = []kumaauthz.Change{}
		}
	}
	for i, d := range r.Linkerd {
		r.Widens = r.Widens || d.Widens()
		if d.Changes == nil {
			r.Linkerd[i].Changes = []linkerdauthz.Change{}
		}
	}
}

func (r *diffReport) write(w io.Writer, output string) error {
	switch output {
	case "json":
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	case "markdown":
		return r.markdown(w)
	case "yaml":
		b, err := yaml.Marshal(r)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	return r.text(w)
}

// incomplete is how many groups and Servers were not compared.
func (r *diffReport) incomplete() int {
	n := 0
	for _, g := range r.Kuma {
		if g.Incomplete != "" {
			n++
		}
	}
	for _, d := range r.Linkerd {
		if d.Incomplete != "" {
			n++
		}
	}
	return n
}

// counts says how many groups change and how many widen.
func counts(n, widen int, what, whats string) string {
	if n == 0 {
		return "no " + what + " changes access"
	}
	if n == 1 {
		return fmt.Sprintf("1 %s changes access (%d widens)", what, widen)
	}
	return fmt.Sprintf("%d %s change access (%d widen)", n, whats, widen)
}

func (r *diffReport) summary() (kuma, linkerd string) {
	kw, lw := 0, 0
	for _, g := range r.Kuma {
		if g.Widens() {
			kw++
		}
	}
	what, whats := api.KindServer, api.KindServer+"s"
	for _, d := range r.Linkerd {
		if d.Widens() {
			lw++
		}
		if d.Default {
			what, whats = "Server or default policy", "Servers or default policies"
		}
	}
	return counts(len(r.Kuma), kw, "proxy group", "proxy groups"), counts(len(r.Linkerd), lw, what, whats)
}

// kumaWords is a Kuma decision: "ALLOW", "DENY (shadow: ALLOW)".
func kumaWords(d kumaauthz.ClassDecision) string {
	word := func(allow bool) string {
		if allow {
			return "ALLOW"
		}
		return "DENY"
	}
	s := word(d.Allow)
	if d.ShadowAllow != d.Allow {
		s += " (shadow: " + word(d.ShadowAllow) + ")"
	}
	s += " by " + d.By.String()
	if d.ShadowBy != nil {
		s += "; shadow by " + d.ShadowBy.String()
	}
	return s
}

func linkerdWords(d linkerdauthz.ClassDecision) string {
	if d.Allow {
		return "allowed by " + d.By
	}
	return "denied: " + d.By
}

var changeMarks = map[string]string{kumaauthz.ChangeWidened: "+", kumaauthz.ChangeNarrowed: "-", kumaauthz.ChangeShadow: "~"}

func clientsText(cs []string) string {
	if len(cs) == 0 {
		return "every client"
	}
	return strings.Join(cs, "; ")
}

func (r *diffReport) text(w io.Writer) error {
	var b strings.Builder
	kuma, linkerd := r.summary()
	fmt.Fprintf(&b, "meshguard diff %s -> %s\nKuma: %s\nLinkerd: %s\n", r.Old, r.New, kuma, linkerd)
	for _, g := range r.Kuma {
		fmt.Fprintf(&b, "\n%s (%s; %d client classes compared)\n", g.Scope, g.Model, g.Classes)
		if g.Identity != "" {
			fmt.Fprintf(&b, "  identity: %s\n", g.Identity)
		}
		if g.Incomplete != "" {
			fmt.Fprintf(&b, "  ! not compared: %s\n", g.Incomplete)
		}
		for _, c := range g.Changes {
			fmt.Fprintf(&b, "  %s %-9s %s\n  %11s was %s\n  %11s now %s\n", changeMarks[c.Kind], c.Kind, clientsText(c.Clients), "", kumaWords(c.Old), "", kumaWords(c.New))
		}
	}
	for _, d := range r.Linkerd {
		fmt.Fprintf(&b, "\n%s (port %s; %s; %d client classes compared)\n", serverTitle(d), d.Port, d.Pods, d.Classes)
		if d.Incomplete != "" {
			fmt.Fprintf(&b, "  ! not compared: %s\n", d.Incomplete)
		}
		for _, c := range d.Changes {
			fmt.Fprintf(&b, "  %s %-9s %s\n  %11s was %s\n  %11s now %s\n", changeMarks[c.Kind], c.Kind, clientsText(c.Clients), "", linkerdWords(c.Old), "", linkerdWords(c.New))
		}
	}
	if r.Widens {
		b.WriteString("\nthis change widens access\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func serverTitle(d linkerdauthz.ServerDiff) string {
	if d.Default {
		return "default policy of " + d.Ref()
	}
	return "Server " + d.Ref()
}

// cell escapes a markdown table cell.
func cell(s string) string {
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

func (r *diffReport) markdown(w io.Writer) error {
	var b strings.Builder
	kuma, linkerd := r.summary()
	fmt.Fprintf(&b, "### meshguard diff: `%s` → `%s`\n\n", r.Old, r.New)
	if r.Widens {
		b.WriteString("**This change widens access**: some clients are allowed that were denied before.\n\n")
	} else {
		b.WriteString("No client gains access.\n\n")
	}
	fmt.Fprintf(&b, "- Kuma: %s\n- Linkerd: %s\n", kuma, linkerd)
	row := func(kind string, clients []string, before, after string) {
		if kind == kumaauthz.ChangeWidened {
			kind = "**widened**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", kind, cell(code(clients)), cell(before), cell(after))
	}
	head := "\n| change | clients | before | after |\n| --- | --- | --- | --- |\n"
	for _, g := range r.Kuma {
		fmt.Fprintf(&b, "\n#### Kuma: %s\n\n%d client classes compared (%s).\n", cell(g.Scope), g.Classes, g.Model)
		if g.Identity != "" {
			fmt.Fprintf(&b, "\n%s.\n", g.Identity)
		}
		if g.Incomplete != "" {
			fmt.Fprintf(&b, "\nNot compared: %s.\n", g.Incomplete)
			continue
		}
		b.WriteString(head)
		for _, c := range g.Changes {
			row(c.Kind, c.Clients, kumaWords(c.Old), kumaWords(c.New))
		}
	}
	for _, d := range r.Linkerd {
		fmt.Fprintf(&b, "\n#### Linkerd: %s\n\nPort %s, %s; %d client classes compared.\n", cell(serverTitle(d)), cell(d.Port), cell(d.Pods), d.Classes)
		if d.Incomplete != "" {
			fmt.Fprintf(&b, "\nNot compared: %s.\n", d.Incomplete)
			continue
		}
		b.WriteString(head)
		for _, c := range d.Changes {
			row(c.Kind, c.Clients, linkerdWords(c.Old), linkerdWords(c.New))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
