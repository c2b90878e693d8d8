package main

import (
	"os"
	"runtime/debug"
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
	// A run whose live data alone outgrows the cap (several hundred thousand
	// documents' cross-document summaries) collects continuously, which the runtime
	// bounds at half the CPU; GOGC or GOMEMLIMIT in the environment turn this off.
	lintMemoryLimit = 256 << 20
)

// tuneGCForLint sets the collector for a lint run unless the user chose its
// settings (GOGC or GOMEMLIMIT in the environment), and returns what restores
// the previous settings.
func tuneGCForLint() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	percent := debug.SetGCPercent(lintGCPercent)
	limit := debug.SetMemoryLimit(lintMemoryLimit)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}
