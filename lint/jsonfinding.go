package lint

import (
	"strconv"
	"unicode/utf8"
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
	return appendJSONString(b, value)
}

// appendJSONString appends s quoted as encoding/json quotes a string with HTML
// escaping off: the escapes JSON requires, U+2028 and U+2029 escaped, and each
// byte of invalid UTF-8 as \ufffd.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
