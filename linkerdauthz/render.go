package linkerdauthz

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/meshguard/meshguard/internal/warnline"
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

// Where is what a shortened Linkerd warning line points to: the webhook attaches
// no annotation for Linkerd objects, `meshguard preview` shows everything.
const Where = "(see `meshguard preview`)"

// Summary is at most four lines (≤ 120 bytes each, no newlines, every name whole
// or visibly elided) about one preview, for admission warnings: which Server and
// how access is decided, up to two grants (the granting object, then who it
// allows from where), then either how many more grants there are or the first note.
func Summary(p Preview) []string {
	pods := strings.Split(p.Pods, ",")
	head := warnline.Line{Lead: "Linkerd Server " + p.Ref() + " port " + p.Port + " (", Items: pods, Sep: ",", Tail: "): " + p.Policy}
	if p.Default {
		head = warnline.Line{Lead: "Linkerd default policy for ", Items: pods, Sep: ",", Tail: ": " + p.Policy}
	}
	out := []string{head.Fit(warnline.Width, Where)}
	for i, c := range p.Clients {
		if i == 2 {
			out = append(out, warnline.Text(fmt.Sprintf("+%d more client grants %s", len(p.Clients)-2, Where), warnline.Width))
			return out
		}
		out = append(out, grantLine(c).Fit(warnline.Width, Where))
	}
	if len(p.Notes) > 0 {
		out = append(out, warnline.Text(shortNote(p.Notes[0], p.Clients), warnline.Width, Where))
	}
	return out
}

// shortNote leaves a grant's authentication refs out of a note that starts with
// the grant, as grantLine does: "AuthorizationPolicy ns/p: MeshTLSAuthentication
// ns/m not in the linted set, …" still names what is missing.
func shortNote(note string, clients []Client) string {
	for _, c := range clients {
		if via, _, ok := strings.Cut(c.Via, " ("); ok && strings.HasPrefix(note, c.Via) {
			return via + note[len(c.Via):]
		}
	}
	return note
}

// grantLine is "VIA allows WHO from NETWORKS": the granting object comes first so
// that a shortened line still names it; its authentication refs are left out for
// room (the preview lists them), and networks that do not fit are counted.
func grantLine(c Client) warnline.Line {
	via, _, _ := strings.Cut(c.Via, " (")
	if via == "" {
		via = "(none)"
	}
	who, nets, route := clientParts(c)
	if nets == nil {
		return warnline.Line{Lead: via + " allows " + who}
	}
	return warnline.Line{Lead: via + " allows " + who + " from ", Items: nets, Sep: "; ", Tail: route}
}
