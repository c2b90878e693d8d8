package main

import (
	"errors"
	"io"

	"github.com/meshguard/meshguard/access"
)

// The seam of `meshguard map -o html`: the page is built by its own package
// (mapview) from the same model; until it is wired in here, -o html says so.
// This file is the one place that changes when it is.

// errMapHTMLNotBuilt is what -o html answers before the page is wired in.
func errMapHTMLNotBuilt() error {
	return errors.New("-o html is not built into this meshguard yet: use -o markdown, -o dot or -o json (the page renders the same model)")
}

// writeMapHTML writes the map as one self-contained HTML page.
func writeMapHTML(w io.Writer, m *access.Map) error { return errMapHTMLNotBuilt() }

// writeMapChangeHTML writes what a change does to the map as one page.
func writeMapChangeHTML(w io.Writer, c *access.MapChange) error { return errMapHTMLNotBuilt() }
