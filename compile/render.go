package compile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/meshguard/meshguard/api"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"sigs.k8s.io/yaml"
)

// jsonPreview fixes the key order of one preview in the JSON document.
type jsonPreview struct {
	Target   Target          `json:"target"`
	Scope    string          `json:"scope"`
	Policies []string        `json:"policies"`
	Items    []PreviewItem   `json:"items"`
	Form     Form            `json:"form"`
	RBAC     json.RawMessage `json:"rbac"`
	HTTPRBAC json.RawMessage `json:"httpRbac,omitempty"`
	Warnings []string        `json:"warnings,omitempty"`
	Findings []jsonFinding   `json:"findings,omitempty"`
}

type jsonFinding struct {
	Code    string `json:"code"`
	Policy  string `json:"policy"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// jsonDoc is the whole JSON document of MarshalJSON and MarshalJSONCompact.
type jsonDoc struct {
	Previews []jsonPreview `json:"previews"`
}

// MarshalJSON renders previews as {"previews": [...]} with each Envoy config as its
// protojson object, indented for people (`meshguard preview -o json`). protojson
// randomizes whitespace on purpose; re-encoding through encoding/json makes the
// bytes stable, which golden tests and diffs need.
func MarshalJSON(previews []Preview) ([]byte, error) {
	doc, err := newJSONDoc(previews)
	if err != nil {
		return nil, err
	}
	return json.MarshalIndent(doc, "", "  ")
}

// MarshalJSONCompact is MarshalJSON without indentation: the same document (it
// decodes to the same value), about half the bytes and time, for machine readers
// such as the admission webhook's `rbac-preview` audit annotation.
func MarshalJSONCompact(previews []Preview) ([]byte, error) {
	doc, err := newJSONDoc(previews)
	if err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}

// newJSONDoc converts previews to the JSON document's types.
func newJSONDoc(previews []Preview) (jsonDoc, error) {
	doc := jsonDoc{Previews: make([]jsonPreview, 0, len(previews))}
	for _, p := range previews {
		jp := jsonPreview{Target: p.Target, Scope: p.Scope, Policies: p.Policies, Items: p.Items, Form: p.Form}
		if jp.Policies == nil {
			jp.Policies = []string{}
		}
		if jp.Items == nil {
			jp.Items = []PreviewItem{}
		}
		var err error
		if jp.RBAC, err = protoJSON(p.RBAC); err != nil {
			return jsonDoc{}, err
		}
		if p.HTTPRBAC != nil {
			if jp.HTTPRBAC, err = protoJSON(p.HTTPRBAC); err != nil {
				return jsonDoc{}, err
			}
		}
		jp.Warnings = p.Warnings
		for _, f := range p.Findings {
			jp.Findings = append(jp.Findings, jsonFinding{Code: f.Origin, Policy: fmt.Sprint(f.BadValue), Field: f.Field, Message: f.Detail})
		}
		doc.Previews = append(doc.Previews, jp)
	}
	return doc, nil
}

func protoJSON(m proto.Message) (json.RawMessage, error) {
	if m == nil {
		return json.RawMessage("null"), nil
	}
	b, err := protojson.Marshal(m)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
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
	lines := []string{fmt.Sprintf("RBAC %s: %s (%s)", p.Scope, strings.Join(p.Policies, ", "), p.Form)}
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
		var order, allow, shadowDeny, shadowAllow []string
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
			order = append(order, fmt.Sprintf("(%d item(s) never decide)", n))
		}
		lines = append(lines, "last match wins: "+strings.Join(order, " > "))
		if len(allow) == 0 {
			allow = []string{"nobody"}
		}
		lines = append(lines, "allowed: "+strings.Join(allow, ", ")+" (unless a later item denies); everyone else denied")
		if len(shadowDeny)+len(shadowAllow) > 0 {
			lines = append(lines, fmt.Sprintf("shadow (not enforced) would deny: %s; would allow: %s", orNone(shadowDeny), orNone(shadowAllow)))
		}
	}
	if n := len(p.Findings) + len(p.Warnings); n > 0 {
		first := ""
		if len(p.Findings) > 0 {
			first = p.Findings[0].Origin + " " + p.Findings[0].Detail
		} else {
			first = p.Warnings[0]
		}
		lines = append(lines, fmt.Sprintf("%d warning(s): %s", n, first))
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
	items := make([]MergedItem, len(p.Items))
	for i, it := range p.Items {
		items[i] = MergedItem{Policy: it.Policy, From: api.MTPFrom{TargetRef: it.TargetRef, Default: api.MTPConf{Action: it.Action}}}
	}
	cs, err := toItems(items, p.Target.Mesh)
	if err != nil {
		return dead
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
	if tags := ref.TagView(); len(tags) > 0 {
		s = tagString(tags)
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
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
