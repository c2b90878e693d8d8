// Package gcstart keeps Go's garbage collector from running while meshguard's
// ~500 packages initialise. Their initialisers allocate about 6 MB, over the
// runtime's first 4 MB heap goal, so every start ran one or two collections
// before main: on a busy 2-core CI runner or pre-commit hook those took a tenth
// to a third of a one-file lint's wall time (docs/performance.md, "Start-up").
//
// Go initialises packages in import-path order among those whose imports are
// done, so this package (importing only runtime/debug) runs before the
// k8s.io, sigs.k8s.io and google.golang.org packages whose initialisers
// allocate most. A command imports it from package main and calls Release first
// thing in main; nothing else may import it.
package gcstart

import "runtime/debug"

// held is the collector's growth target before the hold (GOGC from the
// environment, or 100), set back by Release. A package variable because the
// hold must happen during initialisation, before main can do anything.
var held = debug.SetGCPercent(-1)

// Release gives the collector back the growth target it had before
// initialisation (so GOGC in the environment is honoured) and returns it.
// Commands that set their own target (lint's) do so afterwards, as before.
func Release() int {
	debug.SetGCPercent(held)
	return held
}
