package lint

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// readBlock is how much splitReader reads at a time.
const readBlock = 256 << 10

// splitReader cuts the content of r into chunks exactly as splitDocuments cuts a
// whole file, but hands each chunk to fn as soon as it ends, so that only the
// document being read is buffered. A chunk past MaxDocumentBytes is counted, not
// kept, and comes as an oversized unit; input past MaxFileBytes ends the file
// with an error unit.
func splitReader(name string, r io.Reader, fn func(unit)) {
	if r == nil {
		fn(unit{file: name, err: errors.New("no input stream")})
		return
	}
	s := &splitter{name: name, fn: fn, line: 1, startLine: 1}
	first := true
	for {
		s.compact()
		if cap(s.buf)-len(s.buf) < readBlock/4 {
			s.buf = append(make([]byte, 0, max(2*cap(s.buf), len(s.buf)+readBlock)), s.buf...)
		}
		n, err := r.Read(s.buf[len(s.buf):cap(s.buf)])
		s.buf = s.buf[:len(s.buf)+n]
		s.total += n
		if s.total > MaxFileBytes {
			fn(unit{file: name, err: fileTooLarge(-1)})
			return
		}
		eof := err == io.EOF
		if err != nil && !eof {
			fn(unit{file: name, err: fmt.Errorf("read: %w", err)})
			return
		}
		if first && (len(s.buf) >= 3 || eof) {
			first = false
			if bytes.HasPrefix(s.buf, []byte("\xef\xbb\xbf")) {
				s.buf = s.buf[3:]
			}
		} else if first {
			continue
		}
		s.lines(eof)
		if eof {
			s.finish()
			return
		}
	}
}

// splitter is splitDocuments' state over a buffer that holds the current chunk
// (and a pending directives chunk) and the lines not yet looked at.
type splitter struct {
	name  string
	fn    func(unit)
	buf   []byte
	total int
	// scan is the offset of the first line not looked at, line its number.
	scan, line       int
	start, startLine int
	pending          bool
	pendStart        int
	pendLine         int
	// skip: the current chunk is past MaxDocumentBytes; skipped counts its
	// bytes, skipLine is its first line with content (0: none yet) and midLine
	// says the bytes before scan ended inside a line.
	skip     bool
	skipped  int
	skipLine int
	midLine  bool
}

// lines looks at every complete line of the buffer (at eof, the last one too).
func (s *splitter) lines(eof bool) {
	for s.scan < len(s.buf) {
		rest := s.buf[s.scan:]
		n, br := nextLine(rest)
		if !eof && (br == 0 || (br == 1 && rest[n] == '\r' && n+1 == len(rest))) {
			s.partial(n)
			return // the line (or its CRLF) is not complete yet
		}
		pos, next := s.scan, s.scan+n+br
		s.line1(rest[:n], pos, next)
		s.scan = next
		s.line++
	}
}

// line1 is splitDocuments' loop body for one line at pos..next.
func (s *splitter) line1(text []byte, pos, next int) {
	cont := s.midLine
	s.midLine = false
	switch {
	case !cont && isMarker(text, "---"):
		s.emit(pos)
		s.start, s.startLine = pos, s.line
		return
	case !cont && isMarker(text, "..."):
		s.note(text, next-pos, cont)
		s.emit(next)
		s.start, s.startLine = next, s.line+1
		return
	}
	s.note(text, next-pos, cont)
	switch {
	case s.skip:
		s.start = next // the skipped chunk's bytes are not kept
	case next-s.begin() > MaxDocumentBytes:
		s.enterSkip(next)
	}
}

// begin is where the current chunk starts in the buffer.
func (s *splitter) begin() int {
	if s.pending {
		return s.pendStart
	}
	return s.start
}

// note counts a line of a skipped chunk and remembers its first content line.
func (s *splitter) note(text []byte, size int, cont bool) {
	if !s.skip {
		return
	}
	s.skipped += size
	if s.skipLine == 0 && !cont && hasContent(text) {
		s.skipLine = s.line
	}
}

// enterSkip starts skipping the current chunk, whose bytes up to end were seen.
func (s *splitter) enterSkip(end int) {
	c := chunk{data: s.buf[s.begin():end], line: s.startLine}
	if s.pending {
		c.line = s.pendLine
	}
	s.skip, s.skipped, s.skipLine = true, len(c.data), c.contentLine()
	s.pending = false
	s.start = end
}

// partial handles an incomplete line of n bytes at the end of the buffer: in a
// skipped chunk, or past the document bound, its bytes are counted and dropped.
func (s *splitter) partial(n int) {
	if !s.skip && len(s.buf)-s.begin() <= MaxDocumentBytes+readBlock {
		return
	}
	if !s.skip {
		s.enterSkip(s.scan)
	}
	if n <= readBlock {
		return
	}
	if s.skipLine == 0 && !s.midLine && hasContent(s.buf[s.scan:s.scan+n]) {
		s.skipLine = s.line
	}
	s.skipped += n
	s.scan += n
	s.start = s.scan
	s.midLine = true
}

// emit ends the current chunk at end, as splitDocuments' emit does.
func (s *splitter) emit(end int) {
	if s.skip {
		s.skip = false
		if s.skipLine > 0 {
			s.fn(unit{file: s.name, oversize: s.skipped, chunk: chunk{line: s.skipLine}})
		}
		return
	}
	if end <= s.start {
		return
	}
	c := chunk{data: s.buf[s.start:end], line: s.startLine}
	if s.pending {
		c = chunk{data: s.buf[s.pendStart:end], line: s.pendLine}
		s.pending = false
	}
	if c.directivesOnly() {
		s.pendStart, s.pendLine, s.pending = end-len(c.data), c.line, true
		return
	}
	s.fn(unit{file: s.name, chunk: chunk{data: bytes.Clone(c.data), line: c.line}})
}

// finish ends the input as splitDocuments does after its loop.
func (s *splitter) finish() {
	s.emit(len(s.buf))
	if s.pending {
		s.fn(unit{file: s.name, chunk: chunk{data: bytes.Clone(s.buf[s.pendStart:]), line: s.pendLine}})
	}
}

// compact drops the bytes before the current chunk.
func (s *splitter) compact() {
	cut := min(s.begin(), s.scan)
	if cut == 0 {
		return
	}
	s.buf = s.buf[:copy(s.buf, s.buf[cut:])]
	s.scan -= cut
	s.start -= cut
	if s.pending {
		s.pendStart -= cut
	}
}

// hasContent is chunk.contentLine's test for one line.
func hasContent(text []byte) bool {
	if isMarker(text, "---") || isMarker(text, "...") {
		text = text[3:]
	}
	text = bytes.TrimSpace(text)
	return len(text) > 0 && text[0] != '#'
}
