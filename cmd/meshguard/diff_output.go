package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumaauthz"
	"github.com/meshguard/meshguard/kumadiff"
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
	// KumaConfig is what changes in the merged conf of every policy kind (but
	// MeshTrafficPermission) on every Kuma proxy.
	KumaConfig kumadiff.Report `json:"kumaConfig"`
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

func (r *diffReport) text(w io.Writer) error {
	var b strings.Builder
	kuma, linkerd := r.summary()
	fmt.Fprintf(&b, "meshguard diff %s -> %s\nKuma: %s\nLinkerd: %s\nKuma proxy configuration: %s\n", r.Old, r.New, kuma, linkerd, r.KumaConfig.Summary())
	for _, sec := range r.sections() {
		sec.WriteText(&b)
	}
	r.KumaConfig.WriteText(&b)
	if r.Widens {
		b.WriteString("\nthis change widens access\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// sections are the report's units in the words of their engines: Kuma's proxy
// groups, then Linkerd's Servers and default policies.
func (r *diffReport) sections() []access.DiffSection {
	out := make([]access.DiffSection, 0, len(r.Kuma)+len(r.Linkerd))
	for _, g := range r.Kuma {
		out = append(out, g.Section())
	}
	for _, d := range r.Linkerd {
		out = append(out, d.Section())
	}
	return out
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
	fmt.Fprintf(&b, "- Kuma: %s\n- Linkerd: %s\n- Kuma proxy configuration: %s\n", kuma, linkerd, r.KumaConfig.Summary())
	for _, sec := range r.sections() {
		sec.WriteMarkdown(&b)
	}
	r.KumaConfig.WriteMarkdown(&b)
	_, err := io.WriteString(w, b.String())
	return err
}
