package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/spf13/cobra"

	"github.com/meshguard/meshguard/internal/gcstart"
)

const (
	// lintGCPercent is the collector's growth target while lint runs: most of what
	// a run allocates is garbage the moment a document's verdict is made (the API
	// server's schema validator alone allocates ~70 KB per policy), and with the
	// default of 100 the collector took a fifth to a quarter of lint's CPU.
	lintGCPercent = 400
	// lintMemoryLimit caps the heap the larger growth target may use, so a run
	// stays within the linter's memory goal (400 MiB peak at 100,000 documents,
	// docs/performance.md): near the cap the collector runs as often as it must.
	// A run whose live data grows past half the cap (several hundred thousand
	// documents' findings and cross-document summaries) gets the cap raised to
	// twice its live data (see followLiveHeap): under a fixed cap it collected
	// continuously, and 294,000 documents took 257 s of CPU instead of ~50.
	// GOGC or GOMEMLIMIT in the environment turn this off.
	lintMemoryLimit = 256 << 20
)

// bulkReadAnnotation marks the commands that read documents in bulk and run under
// lint's collector settings (tuneGCForLint): lint, check and map.
const bulkReadAnnotation = "meshguard/gc"

// userChoseGC reports whether the environment sets the collector (GOGC or
// GOMEMLIMIT), which meshguard then leaves alone.
func userChoseGC() bool { return os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" }

// releaseGC ends the hold internal/gcstart puts on the collector while packages
// initialise, once the command is known. A command that runs under lint's settings
// is released straight to lint's growth target: released to the default first,
// the ~7 MB that initialisation leaves on the heap was over the default's 4 MB
// goal, and every one-file lint paid a collection (4-6 ms of CPU) of garbage it
// would never have reused.
func releaseGC(root *cobra.Command, args []string) {
	if c, _, err := root.Find(args); err == nil && c.Annotations[bulkReadAnnotation] != "" && !userChoseGC() {
		debug.SetGCPercent(lintGCPercent)
		return
	}
	gcstart.Release()
}

// tuneGCForLint sets the collector for a lint run unless the user chose its
// settings (GOGC or GOMEMLIMIT in the environment), and returns what restores
// the previous settings.
func tuneGCForLint() (restore func()) {
	if userChoseGC() {
		return func() {}
	}
	percent := debug.SetGCPercent(lintGCPercent)
	limit := debug.SetMemoryLimit(lintMemoryLimit)
	stop := followLiveHeap(lintMemoryLimit)
	return func() {
		stop()
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}

// gcSentinel is garbage whose finalizer runs once per collection; it is large
// enough to stay out of the tiny allocator, whose blocks may never be freed.
type gcSentinel struct{ _ [32]byte }

// followLiveHeap keeps the memory limit at no less than twice the live heap
// (and no less than floor), checked after every collection: a limit below the
// live data makes the collector run back to back, so a run's cost would grow
// with the square of its input. It returns what stops the following; the
// caller then sets the limit it wants.
func followLiveHeap(floor int64) (stop func()) {
	var mu sync.Mutex
	stopped := false
	limit := floor
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	arm = func() {
		runtime.SetFinalizer(new(gcSentinel), func(*gcSentinel) {
			mu.Lock()
			defer mu.Unlock()
			if stopped {
				return
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				if want := 2 * int64(sample[0].Value.Uint64()); want > limit {
					limit = want
					debug.SetMemoryLimit(limit)
				}
			}
			arm()
		})
	}
	arm()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
	}
}
