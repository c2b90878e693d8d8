package fastjson

import "unicode/utf8"

// Cursor reads a JSON document of a known shape member by member — the
// AdmissionReview envelope the API server sends to webhooks — checking what it
// reads as encoding/json would. Its methods report false, never an error, for
// anything outside the plain form they accept (a key with escapes, a value of an
// unexpected type, malformed JSON); the caller then hands the whole document to a
// general decoder. So a decoder built on a Cursor only has to be exact on what it
// accepts, and the fuzz test that compares it with the general decoder checks
// exactly that.
type Cursor struct {
	d decoder
	// depth is the nesting level of the container the cursor is in (0 at the top),
	// for encoding/json's depth limit.
	depth int
}

// NewCursor starts a cursor at the beginning of data.
func NewCursor(data []byte) Cursor { return Cursor{d: decoder{data: data, rawNumbers: true}} }

// Object reads an object, calling member with each key, in order, and the cursor
// at the member's value, which member must read. It reports false when member
// does, for a key that is not plain (escapes, control bytes, invalid UTF-8: its
// decoded form would differ from its bytes) and for malformed JSON.
func (c *Cursor) Object(member func(key []byte) bool) bool {
	return c.container('{', '}', func() bool {
		key, ok := c.plainKey()
		return ok && member(key)
	})
}

// Array reads an array, calling elem with the cursor at each element, which elem
// must read; it reports false when elem does and for malformed JSON.
func (c *Cursor) Array(elem func() bool) bool { return c.container('[', ']', elem) }

// container reads an object or array from open to closing, calling each at every
// member or element.
func (c *Cursor) container(open, closing byte, each func() bool) bool {
	d := &c.d
	d.space()
	if !d.at(open) || c.depth+1 > MaxDepth {
		return false
	}
	d.pos++
	c.depth++
	d.space()
	if d.at(closing) {
		d.pos++
		c.depth--
		return true
	}
	for {
		d.space()
		if !each() {
			return false
		}
		d.space()
		switch {
		case d.at(','):
			d.pos++
		case d.at(closing):
			d.pos++
			c.depth--
			return true
		default:
			return false
		}
	}
}

// plainKey reads a key and its colon; the key's bytes are what encoding/json
// would decode it to.
func (c *Cursor) plainKey() ([]byte, bool) {
	d := &c.d
	if !d.at('"') {
		return nil, false
	}
	start := d.pos + 1
	i := start
	for ; i < len(d.data) && d.data[i] != '"'; i++ {
		if b := d.data[i]; b < ' ' || b == '\\' {
			return nil, false
		}
	}
	if i >= len(d.data) {
		return nil, false
	}
	key := d.data[start:i]
	if !utf8.Valid(key) {
		return nil, false
	}
	d.pos = i + 1
	d.space()
	if !d.at(':') {
		return nil, false
	}
	d.pos++
	return key, true
}

// String reads a string value, decoded as encoding/json does (escapes, U+FFFD for
// invalid UTF-8 and lone surrogates).
func (c *Cursor) String() (string, bool) {
	c.d.space()
	if !c.d.at('"') {
		return "", false
	}
	s, err := c.d.string()
	return s, err == nil
}

// Bool reads true or false.
func (c *Cursor) Bool() (v, ok bool) {
	d := &c.d
	d.space()
	switch {
	case d.at('t'):
		return true, d.literal("true") == nil
	case d.at('f'):
		return false, d.literal("false") == nil
	}
	return false, false
}

// Null reads a null if one is next and reports whether it did.
func (c *Cursor) Null() bool {
	d := &c.d
	d.space()
	if !d.at('n') {
		return false
	}
	return d.literal("null") == nil
}

// Raw reads any value, checked as encoding/json's validity scan checks it, and
// returns its bytes (without the whitespace around it): what encoding/json hands
// to a json.Unmarshaler such as runtime.RawExtension. Numbers are checked against
// the grammar only: a number out of float64's range is kept as written.
func (c *Cursor) Raw() ([]byte, bool) {
	d := &c.d
	d.space()
	start := d.pos
	if d.skip(c.depth+1) != nil {
		return nil, false
	}
	// Capped, so that appending to the value cannot write over what follows it.
	return d.data[start:d.pos:d.pos], true
}

// End reports whether only whitespace is left, as encoding/json requires after the
// top-level value.
func (c *Cursor) End() bool {
	c.d.space()
	return c.d.pos == len(c.d.data)
}
