// Package fastjson reads the JSON objects of admission requests faster than
// encoding/json and with its exact results.
//
// Why it exists: the API server sends every object as JSON, and decoding it into an
// unstructured map with encoding/json (a validity scan, then a reflective decode)
// was the largest single cost of the validating handler for a new object — more than
// every rule together. DecodeObject gives the same map in one pass; a fuzz test
// holds it to encoding/json's results and errors on arbitrary input.
package fastjson

import (
	"errors"
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is encoding/json's nesting limit, kept so that the two accept the same
// documents.
const MaxDepth = 10000

// SyntaxError is malformed JSON, with the byte offset where it was found.
type SyntaxError struct {
	Msg    string
	Offset int
}

func (e *SyntaxError) Error() string { return e.Msg }

// errNotObject is what encoding/json reports, in other words, for a document that
// is valid JSON but not an object (or null).
var errNotObject = errors.New("json: cannot unmarshal non-object into Go value of type map[string]interface {}")

// DecodeObject parses data as json.Unmarshal(data, &m) does for a
// map[string]any m: objects become map[string]any, arrays []any, numbers float64,
// strings with invalid UTF-8 and lone surrogates replaced by U+FFFD, a repeated key
// keeps its last value, and null gives a nil map and no error. Any other top-level
// value, a number out of float64's range and malformed JSON are errors.
func DecodeObject(data []byte) (map[string]any, error) {
	d := decoder{data: data}
	d.space()
	if d.pos >= len(d.data) {
		return nil, d.syntax("unexpected end of JSON input")
	}
	var out map[string]any
	switch d.data[d.pos] {
	case '{':
		m, err := d.object(1)
		if err != nil {
			return nil, err
		}
		out = m
	case 'n':
		if err := d.literal("null"); err != nil {
			return nil, err
		}
	default:
		if _, err := d.value(1); err != nil {
			return nil, err
		}
		if err := d.end(); err != nil {
			return nil, err
		}
		return nil, errNotObject
	}
	if err := d.end(); err != nil {
		return nil, err
	}
	if d.numErr != nil {
		return nil, d.numErr
	}
	return out, nil
}

type decoder struct {
	data []byte
	pos  int
	// numErr is a number out of float64's range; like encoding/json, decoding goes
	// on (a later syntax error takes precedence) and the document is refused.
	numErr error
	// err is a malformed document found by SplitOut's structural walk.
	err bool
	// rawNumbers has skip check numbers against the grammar only, for a Cursor's
	// raw values (encoding/json converts no number it hands to an Unmarshaler).
	rawNumbers bool
}

func (d *decoder) syntax(msg string) error { return &SyntaxError{Msg: msg, Offset: d.pos} }

func (d *decoder) unexpected(context string) error {
	if d.pos >= len(d.data) {
		return d.syntax("unexpected end of JSON input")
	}
	return d.syntax(fmt.Sprintf("invalid character %s %s", quoteChar(d.data[d.pos]), context))
}

// quoteChar formats c as encoding/json's syntax errors do.
func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}

func (d *decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// end checks that only whitespace follows the top-level value.
func (d *decoder) end() error {
	d.space()
	if d.pos < len(d.data) {
		return d.unexpected("after top-level value")
	}
	return nil
}

func (d *decoder) value(depth int) (any, error) {
	d.space()
	if d.pos >= len(d.data) {
		return nil, d.syntax("unexpected end of JSON input")
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		return d.string()
	case c == '-' || ('0' <= c && c <= '9'):
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	default:
		return nil, d.unexpected("looking for beginning of value")
	}
}

func (d *decoder) literal(lit string) error {
	for i := 0; i < len(lit); i++ {
		if d.pos >= len(d.data) {
			return d.syntax("unexpected end of JSON input")
		}
		if d.data[d.pos] != lit[i] {
			return d.unexpected("in literal " + lit + " (expecting " + quoteChar(lit[i]) + ")")
		}
		d.pos++
	}
	return nil
}

func (d *decoder) object(depth int) (map[string]any, error) {
	if depth > MaxDepth {
		return nil, d.syntax("exceeded max depth")
	}
	d.pos++ // '{'
	m := map[string]any{}
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return m, nil
	}
	for {
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, d.unexpected("looking for beginning of object key string")
		}
		key, err := d.string()
		if err != nil {
			return nil, err
		}
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.unexpected("after object key")
		}
		d.pos++
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[key] = v
		if done, err := d.after('}', "after object key:value pair"); err != nil || done {
			return m, err
		}
	}
}

// after moves past the comma or the closing bracket that follows a member or an
// element; done reports the closing bracket.
func (d *decoder) after(closing byte, context string) (done bool, err error) {
	d.space()
	if d.pos >= len(d.data) {
		return false, d.syntax("unexpected end of JSON input")
	}
	switch d.data[d.pos] {
	case ',':
		d.pos++
		return false, nil
	case closing:
		d.pos++
		return true, nil
	}
	return false, d.unexpected(context)
}

func (d *decoder) array(depth int) ([]any, error) {
	if depth > MaxDepth {
		return nil, d.syntax("exceeded max depth")
	}
	d.pos++ // '['
	out := []any{}
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return out, nil
	}
	for {
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if done, err := d.after(']', "after array element"); err != nil || done {
			return out, err
		}
	}
}

// number scans the JSON number grammar and converts it as encoding/json does.
func (d *decoder) number() (any, error) {
	start, err := d.scanNumber()
	if err != nil {
		return nil, err
	}
	s := string(d.data[start:d.pos])
	f, perr := strconv.ParseFloat(s, 64)
	if perr != nil {
		if d.numErr == nil {
			d.numErr = fmt.Errorf("json: cannot unmarshal number %s into Go value of type float64", s)
		}
		return nil, nil
	}
	return f, nil
}

// scanNumber moves past -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and
// returns where it began.
func (d *decoder) scanNumber() (int, error) {
	start := d.pos
	if d.data[d.pos] == '-' {
		d.pos++
	}
	switch {
	case d.pos >= len(d.data):
		return 0, d.syntax("unexpected end of JSON input")
	case d.data[d.pos] == '0':
		d.pos++
	case '1' <= d.data[d.pos] && d.data[d.pos] <= '9':
		d.digits()
	default:
		return 0, d.unexpected("in numeric literal")
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if d.pos >= len(d.data) {
			return 0, d.syntax("unexpected end of JSON input")
		}
		if !isDigit(d.data[d.pos]) {
			return 0, d.unexpected("after decimal point in numeric literal")
		}
		d.digits()
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if d.pos >= len(d.data) {
			return 0, d.syntax("unexpected end of JSON input")
		}
		if !isDigit(d.data[d.pos]) {
			return 0, d.unexpected("in exponent of numeric literal")
		}
		d.digits()
	}
	return start, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func (d *decoder) digits() {
	for d.pos < len(d.data) && isDigit(d.data[d.pos]) {
		d.pos++
	}
}

// string reads a string starting at its opening quote. The common case — printable
// ASCII or valid UTF-8 without escapes — is one slice conversion.
func (d *decoder) string() (string, error) {
	d.pos++ // '"'
	start := d.pos
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			s := string(d.data[start:d.pos])
			d.pos++
			return s, nil
		case c == '\\' || c < ' ':
			return d.slowString(start)
		case c < utf8.RuneSelf:
			d.pos++
		default:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && size == 1 {
				return d.slowString(start)
			}
			d.pos += size
		}
	}
	return "", d.syntax("unexpected end of JSON input")
}

// slowString decodes a string with escapes or invalid UTF-8 the way encoding/json's
// unquote does, from start (just after the opening quote); d.pos is where the fast
// path stopped.
func (d *decoder) slowString(start int) (string, error) {
	b := make([]byte, d.pos-start, d.pos-start+16)
	copy(b, d.data[start:d.pos])
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return string(b), nil
		case c < ' ':
			return "", d.unexpected("in string literal")
		case c == '\\':
			d.pos++
			if d.pos >= len(d.data) {
				return "", d.syntax("unexpected end of JSON input")
			}
			switch e := d.data[d.pos]; e {
			case '"', '\\', '/':
				b = append(b, e)
				d.pos++
			case 'b':
				b = append(b, '\b')
				d.pos++
			case 'f':
				b = append(b, '\f')
				d.pos++
			case 'n':
				b = append(b, '\n')
				d.pos++
			case 'r':
				b = append(b, '\r')
				d.pos++
			case 't':
				b = append(b, '\t')
				d.pos++
			case 'u':
				d.pos++
				r, err := d.hex4()
				if err != nil {
					return "", err
				}
				if utf16.IsSurrogate(r) {
					// A valid pair is consumed whole; otherwise the first half is
					// replaced and the next escape is read on its own.
					if r2, ok := d.peekU4(); ok {
						if dec := utf16.DecodeRune(r, r2); dec != unicode.ReplacementChar {
							d.pos += 6
							b = utf8.AppendRune(b, dec)
							continue
						}
					}
					r = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, r)
			default:
				return "", d.unexpected("in string escape code")
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			d.pos++
		default:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, unicode.ReplacementChar)
			} else {
				b = append(b, d.data[d.pos:d.pos+size]...)
			}
			d.pos += size
		}
	}
	return "", d.syntax("unexpected end of JSON input")
}

// hex4 reads the four hex digits of a \u escape.
func (d *decoder) hex4() (rune, error) {
	r, n := hexPrefix(d.data[d.pos:])
	d.pos += n
	switch {
	case n == 4:
		return r, nil
	case d.pos >= len(d.data):
		return 0, d.syntax("unexpected end of JSON input")
	}
	return 0, d.unexpected("in \\u hexadecimal character escape")
}

// peekU4 reads a following \uXXXX escape without consuming it.
func (d *decoder) peekU4() (rune, bool) {
	if d.pos+6 > len(d.data) || d.data[d.pos] != '\\' || d.data[d.pos+1] != 'u' {
		return 0, false
	}
	r, n := hexPrefix(d.data[d.pos+2 : d.pos+6])
	return r, n == 4
}

// hexPrefix reads up to four hex digits from the start of b: their value and
// how many there were.
func hexPrefix(b []byte) (r rune, n int) {
	for ; n < 4 && n < len(b); n++ {
		h, ok := unhex(b[n])
		if !ok {
			break
		}
		r = r<<4 | h
	}
	return r, n
}

func unhex(c byte) (rune, bool) {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0'), true
	case 'a' <= c && c <= 'f':
		return rune(c - 'a' + 10), true
	case 'A' <= c && c <= 'F':
		return rune(c - 'A' + 10), true
	}
	return 0, false
}
