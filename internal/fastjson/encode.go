package fastjson

import "unicode/utf8"

// hex is encoding/json's digit table for \u escapes.
const hex = "0123456789abcdef"

// HTMLSafe reports whether encoding/json writes the ASCII byte b unescaped with
// HTML escaping on (its htmlSafeSet): printable, not ", \, <, > or &. Writers that
// must match encoding/json byte for byte test strings with it before copying them.
func HTMLSafe(b byte) bool { return htmlSafeSet[b] }

// htmlSafeSet is HTMLSafe as a table: the string writer looks up every byte, and a
// load is cheaper than its seven comparisons.
var htmlSafeSet = func() (t [256]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// AppendString appends s as a JSON string exactly as encoding/json does with
// HTML escaping (json.Marshal, and json.Encoder by default): short escapes for \"
// \\ \b \f \n \r \t, \u00XX for other control bytes and <, >, &, \ufffd for each
// invalid UTF-8 byte, \u2028 and \u2029 for the line and paragraph separators.
// The hand-written encoders of the preview and of AdmissionReview answers use it
// so that their output stays what encoding/json would write.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		for i < len(s) && htmlSafeSet[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		dst = append(dst, s[start:i]...)
		if b := s[i]; b < utf8.RuneSelf {
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
