package lint

import "bytes"

// chunk is a piece of a file that holds at most one YAML document: data starts at
// the 1-based line `line` of the file.
type chunk struct {
	data []byte
	line int
}

// splitDocuments cuts a file at "---" and "..." marker lines. YAML forbids those
// markers at column 0 inside any content, so cutting there never splits a scalar,
// and each piece can be parsed on its own: a syntax error in one document does
// not lose the documents after it. Pieces that hold only directives ("%YAML") and
// comments are glued to the following piece, which the directives belong to.
func splitDocuments(data []byte) []chunk {
	var out []chunk
	start, startLine := 0, 1
	pendingStart, pendingLine, pending := 0, 0, false
	emit := func(end int) {
		if end <= start {
			return
		}
		c := chunk{data: data[start:end], line: startLine}
		if pending {
			c = chunk{data: data[pendingStart:end], line: pendingLine}
			pending = false
		}
		if c.directivesOnly() {
			pendingStart, pendingLine, pending = end-len(c.data), c.line, true
			return
		}
		out = append(out, c)
	}
	line := 1
	for pos := 0; pos < len(data); line++ {
		n, br := nextLine(data[pos:])
		text, next := data[pos:pos+n], pos+n+br
		switch {
		case isMarker(text, "---"):
			emit(pos)
			start, startLine = pos, line
		case isMarker(text, "..."):
			emit(next)
			start, startLine = next, line+1
		}
		pos = next
	}
	emit(len(data))
	if pending { // directives with no document after them
		out = append(out, chunk{data: data[pendingStart:], line: pendingLine})
	}
	return out
}

// isMarker reports whether a line is the document marker m ("---" or "..."),
// alone or followed by whitespace (and possibly content, as in "--- !tag").
func isMarker(text []byte, m string) bool {
	if !bytes.HasPrefix(text, []byte(m)) {
		return false
	}
	if len(text) == len(m) {
		return true
	}
	switch text[len(m)] {
	case ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// contentLine is the file line of the first line that is not blank, a comment or
// a bare marker; 0 when there is none, i.e. the document is empty.
func (c chunk) contentLine() int {
	line := c.line
	for rest := c.data; len(rest) > 0; line++ {
		n, br := nextLine(rest)
		text := rest[:n]
		rest = rest[n+br:]
		if isMarker(text, "---") || isMarker(text, "...") {
			text = text[3:]
		}
		text = bytes.TrimSpace(text)
		if len(text) > 0 && text[0] != '#' {
			return line
		}
	}
	return 0
}

// directivesOnly reports whether the chunk holds a "%" directive and otherwise only
// blank lines and comments.
func (c chunk) directivesOnly() bool {
	found := false
	for rest := c.data; len(rest) > 0; {
		n, br := nextLine(rest)
		text := rest[:n]
		rest = rest[n+br:]
		text = bytes.TrimSpace(text)
		switch {
		case len(text) == 0 || text[0] == '#':
		case text[0] == '%':
			found = true
		default:
			return false
		}
	}
	return found
}

// nextLine returns the length of the first line of b and of the line break that
// ends it (0 at the end of input). Breaks are those yaml.v3 counts when it
// numbers lines (LF, CRLF, CR, NEL, LS, PS), so chunk offsets and node lines
// agree on any input.
func nextLine(b []byte) (n, br int) {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\n':
			return i, 1
		case '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				return i, 2
			}
			return i, 1
		case 0xC2:
			if i+1 < len(b) && b[i+1] == 0x85 {
				return i, 2
			}
		case 0xE2:
			if i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xA8 || b[i+2] == 0xA9) {
				return i, 3
			}
		}
	}
	return len(b), 0
}

// countLines is the number of line breaks in b, counted as nextLine does.
func countLines(b []byte) int {
	lines := 0
	for len(b) > 0 {
		n, br := nextLine(b)
		if br == 0 {
			break
		}
		lines++
		b = b[n+br:]
	}
	return lines
}
