package kumainspect

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// WriteText writes the view for a person: per port and kind, every field of the
// merged conf with the policy item it came from and the items it overrides.
func (v View) WriteText(w io.Writer) error {
	b := bufio.NewWriter(w) // written as it goes: no string of the whole view
	fmt.Fprintf(b, "Dataplane %s, mesh %s (%s)\n", v.Dataplane, v.Mesh, v.KRI)
	section(b, "proxy (single-item policies)", v.Proxy, false)
	for _, p := range v.Inbounds {
		section(b, "inbound "+portTitle(p), p.Entries, true)
	}
	for _, p := range v.Outbounds {
		section(b, "outbound "+portTitle(p), p.Entries, false)
		for _, r := range p.Routes {
			section(b, "outbound "+p.KRI+" route "+r.KRI, r.Entries, false)
		}
	}
	for _, l := range v.Listeners {
		writeListener(b, l)
	}
	return b.Flush()
}

// writeListener writes a builtin gateway listener: its inbound rules, then its
// to rules destination by destination.
func writeListener(b *bufio.Writer, l GatewayListener) {
	title := fmt.Sprintf("gateway listener port %d %s hostname %s", l.Port, l.Protocol, l.Hostname)
	if len(l.Tags) > 0 {
		keys := make([]string, 0, len(l.Tags))
		for k := range l.Tags {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			keys[i] = k + "=" + l.Tags[k]
		}
		title += " (" + strings.Join(keys, ",") + ")"
	}
	if len(l.Inbound) > 0 {
		section(b, title+" inbound", l.Inbound, true)
	}
	if len(l.To) == 0 {
		section(b, title, nil, false)
		return
	}
	for start := 0; start < len(l.To); {
		end := start + 1
		for end < len(l.To) && l.To[end].To == l.To[start].To {
			end++
		}
		section(b, title+" to "+l.To[start].To, l.To[start:end], false)
		start = end
	}
}

func portTitle(p Port) string {
	t := fmt.Sprintf("%s port %d", p.KRI, p.Port)
	if p.Protocol != "" {
		t += " " + p.Protocol
	}
	return t
}

// section writes one port's entries; inbound ones as numbered rules.
func section(b *bufio.Writer, title string, entries []Entry, rules bool) {
	fmt.Fprintf(b, "\n%s\n", title)
	if len(entries) == 0 {
		b.WriteString("  no policy applies\n")
		return
	}
	for _, e := range entries {
		if len(e.Clients) > 0 {
			fmt.Fprintf(b, "  %s: by client, the first group a client is in applies\n", e.Kind)
			for _, c := range e.Clients {
				fmt.Fprintf(b, "    clients %s\n", c.Subset)
				for _, l := range Leaves(c.Conf, "") {
					fmt.Fprintf(b, "      %s: %s%s\n", l.Path, Inline(l.Value), provenance(l.Path, c.Origins))
				}
			}
			continue
		}
		if rules {
			fmt.Fprintf(b, "  %s: %d rule(s), applied in this order\n", e.Kind, len(e.Rules))
			for i, r := range e.Rules {
				match := ""
				if r.Match != nil {
					match = " when " + Inline(r.Match)
				}
				fmt.Fprintf(b, "    %d.%s ← %s %s\n", i+1, match, r.Origin.Policy, r.Origin.Item)
				for _, l := range Leaves(r.Conf, "") {
					fmt.Fprintf(b, "       %s: %s\n", l.Path, Inline(l.Value))
				}
			}
			continue
		}
		fmt.Fprintf(b, "  %s\n", e.Kind)
		conf := e.Conf
		if l, isList := conf.([]any); isList && len(l) == 1 {
			conf = l[0]
		}
		for _, l := range Leaves(conf, "") {
			fmt.Fprintf(b, "    %s: %s%s\n", l.Path, Inline(l.Value), provenance(l.Path, e.Origins))
		}
	}
}

// provenance names the last origin that sets path (the one that decides) and the
// earlier ones it overrides.
// It walks the origins from the last, building the text once (writing every
// proxy asks it for every field).
func provenance(path string, origins []Origin) string {
	last := len(origins) - 1
	for last >= 0 && !Has(origins[last].Conf, path) {
		last--
	}
	if last < 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("  ← ")
	b.WriteString(origins[last].Policy)
	b.WriteByte(' ')
	b.WriteString(origins[last].Item)
	sep := ", over "
	for i := last - 1; i >= 0; i-- {
		if Has(origins[i].Conf, path) {
			b.WriteString(sep)
			b.WriteString(origins[i].Policy)
			b.WriteByte(' ')
			b.WriteString(origins[i].Item)
			sep = ", "
		}
	}
	return b.String()
}

// Leaf is one field of a merged conf: its dotted path (objects descended) and
// its value (a list or a scalar). Inspect prints confs as leaves, and diff and
// the cross-policy findings compare them the same way.
type Leaf struct {
	Path  string
	Value any
}

// Leaves lists a conf's fields as dotted paths, objects descended, lists and
// scalars as values, in key order; a conf that is not an object is one leaf,
// "(conf)".
func Leaves(v any, prefix string) []Leaf {
	m, isMap := v.(map[string]any)
	if !isMap || len(m) == 0 {
		if prefix == "" {
			if v == nil {
				return nil
			}
			return []Leaf{{Path: "(conf)", Value: v}}
		}
		return []Leaf{{Path: prefix, Value: v}}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []Leaf
	for _, k := range keys {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		out = append(out, Leaves(m[k], p)...)
	}
	return out
}

// Has reports whether conf sets the dotted path (walked without splitting it:
// writing every proxy asks this for every field of every origin).
func Has(conf any, path string) bool {
	for more := true; more; {
		var k string
		k, path, more = strings.Cut(path, ".")
		m, isMap := conf.(map[string]any)
		if !isMap {
			return false
		}
		v, ok := m[k]
		if !ok {
			return false
		}
		conf = v
	}
	return true
}

// Inline writes a value on one line: strings as they are, others as JSON.
func Inline(v any) string {
	if x, isString := v.(string); isString {
		return x
	}
	out, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(out)
}
