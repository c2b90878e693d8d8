package main

import (
	"runtime"
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
	// The limit starts at lintMemoryLimit and follows the live heap up (twice
	// it, TestFollowLiveHeap): this test binary's own heap may already be past it.
	if p, l := current(); p != lintGCPercent || l < lintMemoryLimit {
		t.Errorf("lint's collector: %d%%, %d bytes; want %d%%, at least %d bytes", p, l, lintGCPercent, lintMemoryLimit)
	}
	restore()
	if p, l := current(); p != p0 || l != l0 {
		t.Errorf("after lint: %d%%, %d bytes; want %d%%, %d bytes back", p, l, p0, l0)
	}
}

// TestFollowLiveHeap: while lint runs, the memory limit follows the live heap
// (twice it), so live data past the fixed cap does not make the collector run
// back to back (the cause of lint's super-linear growth at 294,000 documents);
// once stopped it no longer moves.
func TestFollowLiveHeap(t *testing.T) {
	const floor = 4 << 20
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(floor))
	stop := followLiveHeap(floor)
	live := make([][]byte, 64)
	for i := range live {
		live[i] = make([]byte, 1<<20) // 64 MiB live
	}
	for range 3 {
		runtime.GC()
		runtime.Gosched()
	}
	deadline := 0
	for debug.SetMemoryLimit(-1) < 2*(64<<20) && deadline < 100 {
		runtime.GC()
		deadline++
	}
	if got := debug.SetMemoryLimit(-1); got < 2*(64<<20) {
		t.Errorf("memory limit %d MiB with 64 MiB live; want at least 128", got>>20)
	}
	stop()
	debug.SetMemoryLimit(floor)
	runtime.GC()
	runtime.GC()
	if got := debug.SetMemoryLimit(-1); got != floor {
		t.Errorf("after stop the limit moved to %d", got)
	}
	runtime.KeepAlive(live)
}
