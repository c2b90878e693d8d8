package main

import (
	"io"

	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/mapview"
)

// The seam of `meshguard map -o html`: the page is built by its own package
// (mapview) from the same model; this file is the one place that calls it.

// writeMapHTML writes the map as one self-contained HTML page.
func writeMapHTML(w io.Writer, m *access.Map) error { return mapview.WriteMap(w, m) }

// writeMapChangeHTML writes what a change does to the map as one page.
func writeMapChangeHTML(w io.Writer, c *access.MapChange) error { return mapview.WriteChange(w, c) }
