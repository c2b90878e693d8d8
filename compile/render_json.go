package compile

import (
	"fmt"
	"slices"

	netrbac "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/rbac/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/internal/fastjson"
)

// previewEncoder writes the preview document {"previews":[...]} by hand. The
// admission webhook renders it for every MeshTrafficPermission (the `rbac-preview`
// audit annotation); through encoding/json it reflected over every field and
// compacted each Envoy config twice (once after protojson, once more inside
// json.Marshal to HTML-escape the RawMessage).
//
// The bytes must stay exactly those of json.Marshal on the former document types
// (render_ref_test.go keeps them): keys in struct-field order, omitempty where the
// tags had it, map keys sorted, strings escaped as encoding/json does with HTML
// escaping. The equality tests and FuzzMarshalJSONCompact hold it to that.
type previewEncoder struct {
	b     []byte   // the document
	proto []byte   // protojson output of a config that needs escaping, reused
	keys  []string // keys of the map being written, reused
}

// appendPreviews writes the whole document.
func (e *previewEncoder) appendPreviews(previews []Preview) error {
	e.b = append(e.b, `{"previews":[`...)
	for i := range previews {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		if err := e.appendPreview(&previews[i]); err != nil {
			return err
		}
	}
	e.b = append(e.b, "]}"...)
	return nil
}

// appendPreview writes one preview with the keys target, scope, policies, items,
// form, rbac, httpRbac (only with an HTTP filter), warnings and findings (only when
// there are any). policies and items are [] rather than null when empty.
func (e *previewEncoder) appendPreview(p *Preview) error {
	e.b = append(e.b, `{"target":`...)
	e.appendTarget(&p.Target)
	e.b = append(e.b, `,"scope":`...)
	e.b = fastjson.AppendString(e.b, p.Scope)
	e.b = append(e.b, `,"policies":`...)
	e.appendStrings(p.Policies)
	e.b = append(e.b, `,"items":[`...)
	for i := range p.Items {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.appendItem(&p.Items[i])
	}
	e.b = append(e.b, `],"form":`...)
	e.b = fastjson.AppendString(e.b, string(p.Form))
	e.b = append(e.b, `,"rbac":`...)
	if err := e.appendProto(p.RBAC); err != nil {
		return err
	}
	if p.HTTPRBAC != nil {
		e.b = append(e.b, `,"httpRbac":`...)
		if err := e.appendProto(p.HTTPRBAC); err != nil {
			return err
		}
	}
	if len(p.Warnings) > 0 {
		e.b = append(e.b, `,"warnings":`...)
		e.appendStrings(p.Warnings)
	}
	if len(p.Findings) > 0 {
		e.b = append(e.b, `,"findings":[`...)
		for i, f := range p.Findings {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.b = append(e.b, `{"code":`...)
			e.b = fastjson.AppendString(e.b, f.Origin)
			e.b = append(e.b, `,"policy":`...)
			if s, ok := f.BadValue.(string); ok { // fmt.Sprint of a string is the string
				e.b = fastjson.AppendString(e.b, s)
			} else {
				e.b = fastjson.AppendString(e.b, fmt.Sprint(f.BadValue))
			}
			e.b = append(e.b, `,"field":`...)
			e.b = fastjson.AppendString(e.b, f.Field)
			e.b = append(e.b, `,"message":`...)
			e.b = fastjson.AppendString(e.b, f.Detail)
			e.b = append(e.b, '}')
		}
		e.b = append(e.b, ']')
	}
	e.b = append(e.b, '}')
	return nil
}

// appendTarget writes a Target: kind and mesh always, the rest when set.
func (e *previewEncoder) appendTarget(t *Target) {
	e.b = append(e.b, `{"kind":`...)
	e.b = fastjson.AppendString(e.b, string(t.Kind))
	e.appendOptString(`,"name":`, t.Name)
	if len(t.Tags) > 0 {
		e.b = append(e.b, `,"tags":`...)
		e.appendStringMap(t.Tags)
	}
	e.appendOptString(`,"sectionName":`, t.SectionName)
	e.appendOptString(`,"namespace":`, t.Namespace)
	e.appendOptString(`,"zone":`, t.Zone)
	e.b = append(e.b, `,"mesh":`...)
	e.b = fastjson.AppendString(e.b, t.Mesh)
	e.b = append(e.b, '}')
}

// appendItem writes a PreviewItem: policy and path always, the rest when set.
func (e *previewEncoder) appendItem(it *PreviewItem) {
	e.b = append(e.b, `{"policy":`...)
	e.b = fastjson.AppendString(e.b, it.Policy)
	e.b = append(e.b, `,"path":`...)
	e.b = fastjson.AppendString(e.b, it.Path)
	if it.TargetRef != nil {
		e.b = append(e.b, `,"targetRef":`...)
		e.appendTargetRef(it.TargetRef)
	}
	e.appendOptString(`,"action":`, it.Action)
	e.appendOptString(`,"list":`, it.List)
	if it.SpiffeID != nil {
		e.b = append(e.b, `,"spiffeId":`...)
		e.appendStringMatch(it.SpiffeID)
	}
	e.appendOptString(`,"method":`, it.Method)
	if it.RequestPath != nil {
		e.b = append(e.b, `,"requestPath":`...)
		e.appendStringMatch(it.RequestPath)
	}
	e.b = append(e.b, '}')
}

// appendTargetRef writes an api.TargetRef, whose fields are all omitempty.
func (e *previewEncoder) appendTargetRef(r *api.TargetRef) {
	e.b = append(e.b, '{')
	open := len(e.b)
	e.appendField(open, "kind", string(r.Kind))
	e.appendField(open, "name", r.Name)
	e.appendField(open, "namespace", r.Namespace)
	if len(r.Labels) > 0 {
		e.appendKey(open, "labels")
		e.appendStringMap(r.Labels)
	}
	if len(r.Tags) > 0 {
		e.appendKey(open, "tags")
		e.appendStringMap(r.Tags)
	}
	e.appendField(open, "mesh", r.Mesh)
	if len(r.ProxyTypes) > 0 {
		e.appendKey(open, "proxyTypes")
		e.appendStrings(r.ProxyTypes)
	}
	e.appendField(open, "sectionName", r.SectionName)
	e.b = append(e.b, '}')
}

// appendStringMatch writes an api.StringMatch, whose fields are both omitempty.
func (e *previewEncoder) appendStringMatch(m *api.StringMatch) {
	e.b = append(e.b, '{')
	open := len(e.b)
	e.appendField(open, "type", m.Type)
	e.appendField(open, "value", m.Value)
	e.b = append(e.b, '}')
}

// appendOptString writes key (with its comma and colon) and s unless s is empty.
func (e *previewEncoder) appendOptString(key, s string) {
	if s != "" {
		e.b = append(e.b, key...)
		e.b = fastjson.AppendString(e.b, s)
	}
}

// appendField writes the omitempty string field name of an object opened at open.
func (e *previewEncoder) appendField(open int, name, s string) {
	if s != "" {
		e.appendKey(open, name)
		e.b = fastjson.AppendString(e.b, s)
	}
}

// appendKey writes `"name":`, after a comma unless it is the first key of the
// object opened at open. Names are plain ASCII, as in the struct tags.
func (e *previewEncoder) appendKey(open int, name string) {
	if len(e.b) > open {
		e.b = append(e.b, ',')
	}
	e.b = append(e.b, '"')
	e.b = append(e.b, name...)
	e.b = append(e.b, '"', ':')
}

// appendStrings writes a string list; nil becomes [] (no caller needs null).
func (e *previewEncoder) appendStrings(l []string) {
	e.b = append(e.b, '[')
	for i, s := range l {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = fastjson.AppendString(e.b, s)
	}
	e.b = append(e.b, ']')
}

// appendStringMap writes a non-empty map with its keys sorted byte-wise before
// escaping, as encoding/json does.
func (e *previewEncoder) appendStringMap(m map[string]string) {
	e.keys = e.keys[:0]
	for k := range m {
		e.keys = append(e.keys, k)
	}
	slices.Sort(e.keys)
	e.b = append(e.b, '{')
	for i, k := range e.keys {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = fastjson.AppendString(e.b, k)
		e.b = append(e.b, ':')
		e.b = fastjson.AppendString(e.b, m[k])
	}
	e.b = append(e.b, '}')
}

// appendProto writes an Envoy config as its protojson object, compacted and
// HTML-escaped in one pass (appendCompactHTML). protojson appends straight to the
// document, which is then compacted in place; only a config with bytes to escape
// (<, >, &, maybe U+2028/U+2029) is copied out first, since escaping grows it. A
// nil interface is null, as before.
func (e *previewEncoder) appendProto(m proto.Message) error {
	if m == nil {
		e.b = append(e.b, "null"...)
		return nil
	}
	if rbac, ok := m.(*netrbac.RBAC); ok && rbac != nil {
		if b, ok := appendNetRBAC(e.b, rbac); ok {
			e.b = b
			return nil
		}
	}
	start := len(e.b)
	b, err := protojson.MarshalOptions{}.MarshalAppend(e.b, m)
	if err != nil {
		return err
	}
	raw := b[start:]
	if mayNeedHTMLEscape(raw) {
		e.proto = append(e.proto[:0], raw...)
		raw = e.proto
	}
	// Without escapes the compacted text is never longer than what has been read
	// of raw, so writing it over raw in place is safe.
	e.b = appendCompactHTML(b[:start], raw)
	return nil
}

// mayNeedHTMLEscape reports whether appendCompactHTML could escape something in
// src: <, >, & or the first byte of U+2028/U+2029 (and of other U+2xxx).
func mayNeedHTMLEscape(src []byte) bool {
	for _, c := range src {
		if c == '<' || c == '>' || c == '&' || c == 0xE2 {
			return true
		}
	}
	return false
}

// appendCompactHTML appends the JSON text src without insignificant whitespace and
// with <, >, &, U+2028 and U+2029 escaped: what json.Compact followed by
// json.Marshal of the result as a json.RawMessage produced (encoding/json's
// appendCompact with escape set). src must be valid JSON, which protojson output
// is: whitespace outside strings is all the scanner would drop, and the escaped
// bytes can only occur inside strings.
func appendCompactHTML(dst, src []byte) []byte {
	inString := false
	start := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case inString && c == '\\':
			i++ // the escaped byte is never a quote that ends the string
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			dst = append(dst, src[start:i]...)
			start = i + 1
		case c == '<' || c == '>' || c == '&':
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			start = i + 1
		case c == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8:
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[src[i+2]&0xF])
			i += 2
			start = i + 1
		}
	}
	return append(dst, src[start:]...)
}

// hex is encoding/json's digit table for \u escapes.
const hex = "0123456789abcdef"
