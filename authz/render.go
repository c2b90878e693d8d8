package authz

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// jsonDoc fixes the shape of the JSON document: Servers (and unattached
// authorizations) apart from the default-policy views, both always arrays.
type jsonDoc struct {
	Servers  []Preview `json:"servers"`
	Defaults []Preview `json:"defaults"`
}

// MarshalJSON renders previews as {"servers": [...], "defaults": [...]}, indented;
// the CLI embeds it under "linkerd" next to the Kuma previews.
func MarshalJSON(previews []Preview) ([]byte, error) {
	doc := jsonDoc{Servers: []Preview{}, Defaults: []Preview{}}
	for _, p := range previews {
		if p.Clients == nil {
			p.Clients = []Client{}
		}
		if p.Default {
			doc.Defaults = append(doc.Defaults, p)
		} else {
			doc.Servers = append(doc.Servers, p)
		}
	}
	return json.MarshalIndent(doc, "", "  ")
}

// RenderJSON writes MarshalJSON's document and a newline.
func RenderJSON(w io.Writer, previews []Preview) error {
	b, err := MarshalJSON(previews)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// RenderTable writes one row per client (SERVER, PORT, PODS, CLIENT, VIA), the
// Server's columns only on its first row so groups stand out, then the notes. Default
// views are listed after the Servers with "default" in place of a Server name.
func RenderTable(w io.Writer, previews []Preview) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tPORT\tPODS\tCLIENT\tVIA")
	var notes []string
	for _, p := range previews {
		ref := p.Ref()
		if p.Default {
			ref = "default " + ref
		}
		clients := p.Clients
		if len(clients) == 0 {
			clients = []Client{{Kind: ClientNone}}
		}
		for i, c := range clients {
			if i == 0 {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", ref, p.Port, p.Pods, ClientWords(c), c.Via)
			} else {
				fmt.Fprintf(tw, "\t\t\t%s\t%s\n", ClientWords(c), c.Via)
			}
		}
		for _, n := range p.Notes {
			notes = append(notes, ref+": "+n)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(notes) > 0 {
		if _, err := fmt.Fprintf(w, "\nNOTES\n  %s\n", strings.Join(notes, "\n  ")); err != nil {
			return err
		}
	}
	return nil
}

// Summary is at most four lines (≤ 120 chars each, no newlines) about one preview,
// for admission warnings: what it covers and how access is decided, up to two
// clients, then either how many more there are or the first note.
func Summary(p Preview) []string {
	head := "Linkerd Server " + p.Ref() + " port " + p.Port + " (" + p.Pods + "): " + p.Policy
	if p.Default {
		head = "Linkerd default policy for " + p.Pods + ": " + p.Policy
	}
	out := []string{oneLine(head)}
	for i, c := range p.Clients {
		if i == 2 {
			out = append(out, oneLine(fmt.Sprintf("… and %d more client grants (meshguard preview lists them)", len(p.Clients)-2)))
			return out
		}
		// The granting object comes first so a cut line still names it; its
		// authentication refs are left out for room (the preview lists them).
		who := "no one"
		if c.Kind != ClientNone {
			who = ClientWords(c)
		}
		via, _, _ := strings.Cut(c.Via, " (")
		if via == "" {
			via = "(none)"
		}
		out = append(out, oneLine(via+" allows "+who))
	}
	if len(p.Notes) > 0 {
		out = append(out, oneLine(p.Notes[0]))
	}
	return out
}

// oneLine flattens whitespace and cuts s to 120 runes with an ellipsis, the limit
// admission warnings are kept to.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const limit = 120
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)
	return string(r[:limit-1]) + "…"
}
