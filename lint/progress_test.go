package lint

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestProgress: nothing before the delay, one redrawn line after it at most every
// 100 ms, and a clean line at the end; nothing to clear when nothing was drawn.
func TestProgress(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(1000, 0)
	p := NewProgress(&buf, time.Second)
	p.now = func() time.Time { return now }
	p.start = now
	p.Update(10)
	now = now.Add(500 * time.Millisecond)
	p.Update(20)
	if buf.Len() != 0 {
		t.Fatalf("drawn before the delay: %q", buf.String())
	}
	now = now.Add(600 * time.Millisecond)
	p.Update(30)
	now = now.Add(50 * time.Millisecond)
	p.Update(40) // too soon to redraw
	now = now.Add(100 * time.Millisecond)
	p.Update(50)
	p.Done()
	want := "\r\x1b[Kmeshguard lint: 30 documents read, 1.1s" + "\r\x1b[Kmeshguard lint: 50 documents read, 1.2s" + "\r\x1b[K"
	if buf.String() != want {
		t.Fatalf("got %q\nwant %q", buf.String(), want)
	}

	buf.Reset()
	q := NewProgress(&buf, time.Hour)
	q.Update(1)
	q.Done()
	if buf.Len() != 0 {
		t.Fatalf("a run shorter than the delay wrote %q", buf.String())
	}
	if strings.Contains(want, "\n") {
		t.Fatal("the progress line must not end lines")
	}
}
