package fastjson

import (
	"slices"
)

// SplitOut walks a JSON object and calls keep with its bytes outside the values of
// the given fields of its member obj — for example the uid, creationTimestamp and
// managedFields of an object's metadata — in order. It returns false for input it
// cannot walk (no object at the top, truncated, a malformed cut value).
//
// Why: the API server gives every object it is about to create a fresh uid and
// creation timestamp and stamps managedFields with the time, so two CREATEs of the
// same manifest never carry the same bytes; a key over what SplitOut keeps finds
// them equal without decoding either.
//
// What a key over the pieces may rely on: the pieces are the document with each
// cut value removed (each cut is right after a `"field":`), and every cut value is
// checked as DecodeObject would check it. So two documents with equal pieces differ
// only in valid values of those fields: either both are valid JSON, decoding to the
// same map but for those fields, or neither is. The rest of the document is walked
// for its structure only, not checked, which keeps the walk at memory speed; an
// invalid document still has pieces, which only other invalid documents share.
// Keys are compared as their raw bytes: a field written with escapes is kept,
// which is only ever more conservative.
func SplitOut(data []byte, obj string, fields []string, keep func([]byte)) bool {
	s := decoder{data: data}
	mark := 0
	s.space()
	if !s.at('{') {
		return false
	}
	ok := s.skimMembers(func(key []byte) bool {
		if string(key) != obj || !s.at('{') {
			return s.skim()
		}
		return s.skimMembers(func(key []byte) bool {
			if !slices.Contains(fields, string(key)) {
				return s.skim()
			}
			keep(data[mark:s.pos])
			if s.skip(3) != nil || s.numErr != nil {
				return false
			}
			mark = s.pos
			return true
		})
	})
	if !ok {
		return false
	}
	s.space()
	if s.pos != len(data) {
		return false
	}
	keep(data[mark:])
	return true
}

// skimMembers walks the members of the object at s.pos (its '{'), calling member
// with each key and s at the member's value, which member must move past. It
// reports false when member does and for input it cannot walk.
func (s *decoder) skimMembers(member func(key []byte) bool) bool {
	s.pos++ // '{'
	for {
		s.space()
		if s.at('}') {
			s.pos++
			return true
		}
		key, ok := s.skimKey()
		if !ok {
			return false
		}
		s.space()
		if !member(key) {
			return false
		}
		if !s.next('}') {
			return !s.err
		}
	}
}

func (s *decoder) at(c byte) bool { return s.pos < len(s.data) && s.data[s.pos] == c }

// next moves past the comma after a member and reports true, or past the closing
// bracket and reports false; anything else sets s.err and reports false.
func (s *decoder) next(closing byte) bool {
	s.space()
	switch {
	case s.at(','):
		s.pos++
		return true
	case s.at(closing):
		s.pos++
	default:
		s.err = true
	}
	return false
}

// skimKey reads a member's key and its colon, returning the key's raw bytes.
func (s *decoder) skimKey() ([]byte, bool) {
	if !s.at('"') {
		return nil, false
	}
	start := s.pos + 1
	if !s.skimString() {
		return nil, false
	}
	key := s.data[start : s.pos-1]
	s.space()
	if !s.at(':') {
		return nil, false
	}
	s.pos++
	return key, true
}

// skimString moves past a string without checking its contents. A plain byte loop:
// the strings that make up most of an object (a last-applied-configuration
// annotation is kilobytes of escaped quotes) have a quote or backslash every few
// bytes, which made a word-at-a-time search and a byte search slower.
func (s *decoder) skimString() bool {
	for i := s.pos + 1; i < len(s.data); i++ {
		switch s.data[i] {
		case '"':
			s.pos = i + 1
			return true
		case '\\':
			i++
		}
	}
	return false
}

// skim moves past one value by its structure: strings by skimString, containers by
// counting brackets, anything else up to the next delimiter.
func (s *decoder) skim() bool {
	if s.pos >= len(s.data) {
		return false
	}
	switch s.data[s.pos] {
	case '"':
		return s.skimString()
	case '{', '[':
		depth := 0
		for s.pos < len(s.data) {
			switch s.data[s.pos] {
			case '"':
				if !s.skimString() {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.pos++
					return true
				}
			}
			s.pos++
		}
		return false
	default:
		start := s.pos
		for s.pos < len(s.data) {
			switch s.data[s.pos] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return s.pos > start
			}
			s.pos++
		}
		return s.pos > start
	}
}

// skip moves past one value, checking it as DecodeObject would (a number out of
// range is left in s.numErr).
func (s *decoder) skip(depth int) error {
	s.space()
	if s.pos >= len(s.data) {
		return s.syntax("unexpected end of JSON input")
	}
	switch c := s.data[s.pos]; {
	case c == '{', c == '[':
		return s.skipContainer(depth)
	case c == '"':
		return s.skipString()
	case c == '-' || isDigit(c):
		if s.rawNumbers {
			_, err := s.scanNumber()
			return err
		}
		// Converted, so that a number DecodeObject refuses is refused here too.
		_, err := s.number()
		return err
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	default:
		return s.unexpected("looking for beginning of value")
	}
}

// skipContainer checks an object or array at s.pos, as DecodeObject would.
func (s *decoder) skipContainer(depth int) error {
	if depth > MaxDepth {
		return s.syntax("exceeded max depth")
	}
	object := s.data[s.pos] == '{'
	closing := byte(']')
	if object {
		closing = '}'
	}
	s.pos++
	s.space()
	if s.at(closing) {
		s.pos++
		return nil
	}
	for {
		if object {
			s.space()
			if !s.at('"') {
				return s.unexpected("looking for beginning of object key string")
			}
			if err := s.skipString(); err != nil {
				return err
			}
			s.space()
			if !s.at(':') {
				return s.unexpected("after object key")
			}
			s.pos++
		}
		if err := s.skip(depth + 1); err != nil {
			return err
		}
		if done, err := s.after(closing, "after object key:value pair or array element"); err != nil || done {
			return err
		}
	}
}

// skipString moves past a string, checking its escapes and control characters
// (invalid UTF-8 is accepted, as encoding/json does).
func (s *decoder) skipString() error {
	s.pos++ // '"'
	for s.pos < len(s.data) {
		switch c := s.data[s.pos]; {
		case c == '"':
			s.pos++
			return nil
		case c < ' ':
			return s.unexpected("in string literal")
		case c == '\\':
			s.pos++
			if s.pos >= len(s.data) {
				return s.syntax("unexpected end of JSON input")
			}
			switch s.data[s.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.pos++
			case 'u':
				s.pos++
				if _, err := s.hex4(); err != nil {
					return err
				}
			default:
				return s.unexpected("in string escape code")
			}
		default:
			s.pos++
		}
	}
	return s.syntax("unexpected end of JSON input")
}
