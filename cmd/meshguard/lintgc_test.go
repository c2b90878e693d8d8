package main

import (
	"runtime/debug"
	"testing"
)

// TestTuneGCForLint: lint sets the collector only when the user left GOGC and
// GOMEMLIMIT alone, and puts the previous settings back when it is done.
func TestTuneGCForLint(t *testing.T) {
	current := func() (int, int64) {
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return p, debug.SetMemoryLimit(-1)
	}
	p0, l0 := current()
	for _, env := range []struct{ gogc, limit string }{{"50", ""}, {"", "1GiB"}} {
		t.Setenv("GOGC", env.gogc)
		t.Setenv("GOMEMLIMIT", env.limit)
		restore := tuneGCForLint()
		if p, l := current(); p != p0 || l != l0 {
			t.Errorf("GOGC=%q GOMEMLIMIT=%q: lint changed the collector to %d%%, %d bytes", env.gogc, env.limit, p, l)
		}
		restore()
	}
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	restore := tuneGCForLint()
	if p, l := current(); p != lintGCPercent || l != lintMemoryLimit {
		t.Errorf("lint's collector: %d%%, %d bytes; want %d%%, %d bytes", p, l, lintGCPercent, lintMemoryLimit)
	}
	restore()
	if p, l := current(); p != p0 || l != l0 {
		t.Errorf("after lint: %d%%, %d bytes; want %d%%, %d bytes back", p, l, p0, l0)
	}
}
