package lint

import (
	"strconv"

	"github.com/meshguard/meshguard/api"
)

// appendFindingJSON appends f as WriteJSON's encoder wrote it (json.Encoder with
// SetEscapeHTML(false) and SetIndent("    ", "  "), without the first line's
// prefix and the final newline), byte for byte, without reflection or the
// encoder's second pass that re-indents compact JSON: a run with 588,000
// findings spent a twentieth of its CPU there (issue 27 point 5).
// TestFindingJSONIsTheEncoders compares the two.
func appendFindingJSON(b []byte, f *Finding) []byte {
	const in = "\n      " // the prefix "    " and one indent
	b = append(b, '{')
	b = appendMember(b, in, "file", f.File, true)
	b = append(b, ","+in+`"line": `...)
	b = strconv.AppendInt(b, int64(f.Line), 10)
	b = appendMember(b, ","+in, "apiVersion", f.APIVersion, f.APIVersion != "")
	b = appendMember(b, ","+in, "kind", f.Kind, f.Kind != "")
	b = appendMember(b, ","+in, "namespace", f.Namespace, f.Namespace != "")
	b = appendMember(b, ","+in, "name", f.Name, f.Name != "")
	b = appendMember(b, ","+in, "severity", f.Severity, true)
	b = appendMember(b, ","+in, "code", f.Code, true)
	b = appendMember(b, ","+in, "field", f.Field, true)
	b = appendMember(b, ","+in, "message", f.Message, true)
	b = appendMember(b, ","+in, "renderedBy", f.RenderedBy, f.RenderedBy != "")
	if f.RenderedLine != 0 {
		b = append(b, ","+in+`"renderedLine": `...)
		b = strconv.AppendInt(b, int64(f.RenderedLine), 10)
	}
	if s := f.Suppression; s != nil {
		const in2 = in + "  "
		b = append(b, ","+in+`"suppression": {`...)
		b = appendMember(b, in2, "kind", s.Kind, true)
		b = appendMember(b, ","+in2, "justification", s.Justification, true)
		b = appendMember(b, ","+in2, "source", s.Source, true)
		b = appendMember(b, ","+in2, "expires", s.Expires, s.Expires != "")
		b = append(b, in+"}"...)
	}
	return append(b, "\n    }"...)
}

// appendMember appends lead, then "name": value when present is true.
func appendMember(b []byte, lead, name, value string, present bool) []byte {
	if !present {
		return b
	}
	b = append(b, lead...)
	b = append(b, '"')
	b = append(b, name...)
	b = append(b, `": `...)
	return api.AppendJSONString(b, value, false)
}
