package lint

import (
	"fmt"
	"io"
	"time"
)

// progressEvery is how often the progress line is redrawn.
const progressEvery = 100 * time.Millisecond

// Progress draws "meshguard lint: N documents read, 2.3s" on one line (redrawn
// with a carriage return) while a run that has taken longer than a delay goes on,
// and clears the line at the end, so a terminal shows that a large input is being
// worked on without leaving anything in the output.
type Progress struct {
	w           io.Writer
	delay       time.Duration
	start, last time.Time
	shown       bool
	now         func() time.Time
	// label is the line's text before the count, e.g. "meshguard lint: %d documents read".
	label string
}

// NewProgress starts the clock of a progress line on w, drawn once delay has
// passed. The caller decides whether w is a terminal.
func NewProgress(w io.Writer, delay time.Duration) *Progress {
	return NewProgressOf(w, delay, "meshguard lint: %d documents read")
}

// NewProgressOf is NewProgress with the text of the line: label has one %d, the
// count given to Update (meshguard audit counts objects read from a cluster).
func NewProgressOf(w io.Writer, delay time.Duration, label string) *Progress {
	p := &Progress{w: w, delay: delay, now: time.Now, label: label}
	p.start = p.now()
	return p
}

// Update redraws the line with docs documents read, at most every 100 ms.
func (p *Progress) Update(docs int) {
	t := p.now()
	if t.Sub(p.start) < p.delay || (p.shown && t.Sub(p.last) < progressEvery) {
		return
	}
	p.last, p.shown = t, true
	fmt.Fprintf(p.w, "\r\x1b[K"+p.label+", %.1fs", docs, t.Sub(p.start).Seconds())
}

// Done clears the line if it was drawn.
func (p *Progress) Done() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}
