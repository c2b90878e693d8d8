package compile

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/meshguard/meshguard/api"
	"sigs.k8s.io/yaml"
)

// MarshalJSON renders previews as {"previews": [...]} with each Envoy config as its
// protojson object, indented for people (`meshguard preview -o json`). protojson
// randomizes whitespace on purpose; the document is built compact with the configs
// compacted (MarshalJSONCompact) and then indented, which makes the bytes stable
// for golden tests and diffs. This is what json.MarshalIndent did: json.Marshal,
// then the same indentation pass as json.Indent.
func MarshalJSON(previews []Preview) ([]byte, error) {
	b, err := MarshalJSONCompact(previews)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// MarshalJSONCompact is MarshalJSON without indentation: the same document (it
// decodes to the same value), about half the bytes, for machine readers such as
// the admission webhook's `rbac-preview` audit annotation. It runs on every
// admission request, so it is written by hand (previewEncoder) instead of going
// through encoding/json, with byte-identical output.
func MarshalJSONCompact(previews []Preview) ([]byte, error) {
	// A preview of a few policies is 1-2 KB of JSON (Kuma's MeshTrafficPermission MADR's are ~2 KB); the
	// guess saves most regrowth of the buffer protojson appends to.
	e := previewEncoder{b: make([]byte, 0, 512+2048*len(previews))}
	if err := e.appendPreviews(previews); err != nil {
		return nil, err
	}
	return e.b, nil
}

// RenderJSON writes previews as one JSON object (`meshguard preview -o json`).
func RenderJSON(w io.Writer, previews []Preview) error {
	b, err := MarshalJSON(previews)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// RenderYAML writes the same document as YAML, converted from the JSON so that
// both outputs carry exactly the same data (`meshguard preview -o yaml`).
func RenderYAML(w io.Writer, previews []Preview) error {
	b, err := MarshalJSON(previews)
	if err != nil {
		return err
	}
	y, err := yaml.JSONToYAML(b)
	if err != nil {
		return err
	}
	_, err = w.Write(y)
	return err
}

// Summary gives at most five one-line statements (≤ 120 chars, no newlines) about
// a preview, short enough for admission warnings: which clients the group's
// proxies allow, deny and shadow.
func Summary(p Preview) []string {
	lines := make([]string, 1, 6)
	lines[0] = "RBAC " + p.Scope + ": " + strings.Join(p.Policies, ", ") + " (" + string(p.Form) + ")"
	if p.Form == FormSkipped {
		for _, w := range p.Warnings {
			lines = append(lines, oneLine("rbac-preview: "+w, 120))
		}
		lines[0] = oneLine(lines[0], 120)
		return lines
	}
	if p.Form == FormMatcher {
		lists := map[string][]string{}
		for _, it := range p.Items {
			lists[it.List] = append(lists[it.List], matcherWords(it))
		}
		if l := lists[ListDeny]; len(l) > 0 {
			lines = append(lines, "denied first: "+strings.Join(l, ", "))
		}
		allowed := append(append([]string{}, lists[ListAllow]...), lists[ListAllowWithShadowDeny]...)
		if len(allowed) == 0 {
			allowed = []string{"nobody"}
		}
		lines = append(lines, "allowed: "+strings.Join(allowed, ", ")+"; everyone else denied")
		if l := lists[ListAllowWithShadowDeny]; len(l) > 0 {
			lines = append(lines, "shadow (not enforced) would deny: "+strings.Join(l, ", "))
		}
	} else {
		var shadowDeny, shadowAllow []string
		order := make([]string, 0, len(p.Items)+1) // +1: the "never decide" note
		allow := make([]string, 0, len(p.Items))
		dead := deadItems(p)
		for i, it := range p.Items {
			if dead[i] {
				continue
			}
			who := clientWords(it.TargetRef, p.Target.Mesh)
			order = append(order, it.Action+" "+who)
			a, err := ParseAction(it.Action)
			if err != nil {
				continue
			}
			if a.Allows() {
				allow = append(allow, who)
			}
			switch a {
			case AllowWithShadowDeny:
				shadowDeny = append(shadowDeny, who)
			case DenyWithShadowAllow:
				shadowAllow = append(shadowAllow, who)
			}
		}
		if n := len(p.Items) - len(order); n > 0 {
			order = append(order, "("+strconv.Itoa(n)+" item(s) never decide)")
		}
		lines = append(lines, "last match wins: "+strings.Join(order, " > "))
		if len(allow) == 0 {
			allow = []string{"nobody"}
		}
		lines = append(lines, "allowed: "+strings.Join(allow, ", ")+" (unless a later item denies); everyone else denied")
		if len(shadowDeny)+len(shadowAllow) > 0 {
			lines = append(lines, "shadow (not enforced) would deny: "+orNone(shadowDeny)+"; would allow: "+orNone(shadowAllow))
		}
	}
	if n := len(p.Findings) + len(p.Warnings); n > 0 {
		first := ""
		if len(p.Findings) > 0 {
			first = p.Findings[0].Origin + " " + p.Findings[0].Detail
		} else {
			first = p.Warnings[0]
		}
		lines = append(lines, strconv.Itoa(n)+" warning(s): "+first)
	}
	if len(lines) > 5 {
		lines = lines[:5]
	}
	for i := range lines {
		lines[i] = oneLine(lines[i], 120)
	}
	return lines
}

// deadItems marks the `from` items of a preview that a later item covers: they
// never decide, so the summary leaves them out instead of listing clients the
// configuration does not treat that way.
func deadItems(p Preview) []bool {
	dead := make([]bool, len(p.Items))
	// toItems of the items as MergedItems, without building them.
	cs := make([]cItem, len(p.Items))
	n := 0
	for _, it := range p.Items {
		if r := it.TargetRef; r != nil {
			n += len(r.Tags) + 2
		}
	}
	buf := make([]atom, 0, n)
	for i, it := range p.Items {
		a, err := ParseAction(it.Action)
		if err != nil {
			return dead
		}
		start := len(buf)
		buf = itemAtoms(buf, it.TargetRef, p.Target.Mesh)
		cs[i] = cItem{atoms: buf[start:len(buf):len(buf)], action: a}
	}
	for i := range cs {
		for j := i + 1; j < len(cs) && !dead[i]; j++ {
			dead[i] = covers(cs[j], cs[i])
		}
	}
	return dead
}

func orNone(l []string) string {
	if len(l) == 0 {
		return "nobody"
	}
	return strings.Join(l, ", ")
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
	if it.Method != "" {
		parts = append(parts, it.Method)
	}
	if it.RequestPath != nil {
		parts = append(parts, it.RequestPath.Value)
	}
	if len(parts) == 0 {
		return "any client"
	}
	return strings.Join(parts, " ")
}

// oneLine removes line breaks and cuts s to max bytes on a rune boundary.
func oneLine(s string, max int) string {
	if !isOneLine(s) {
		s = strings.Join(strings.Fields(s), " ")
	}
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// isOneLine reports whether strings.Join(strings.Fields(s), " ") is s: s is ASCII
// with single spaces between words and none at either end. Summary lines almost
// always are, and then oneLine does not rebuild them.
func isOneLine(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf, c == '\t', c == '\n', c == '\v', c == '\f', c == '\r':
			return false
		case c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' '):
			return false
		}
	}
	return true
}
