package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// mapExample is the input the tour maps: check's policies over five workloads
// of three namespaces.
const mapExample = "examples/map/kuma"

// mapShows is a line the map of mapExample must show: the payments owner's
// override, cart denied where the rest of shop is allowed.
const mapShows = "shop/Deployment/payments:80       D2    A   .   d   .   ."

// mapFile is the file, in the demo's directory, that the tour writes the map
// to: the one self-contained page, to open in a browser.
const (
	mapFile   = "access-map.html"
	mapFormat = "html"
)

// accessMap runs meshguard map on mapExample: the matrix on the terminal, and
// the map written to a file whose place the tour says.
func (d *demo) accessMap(ctx context.Context) error {
	d.p.heading("7. meshguard map: who may call whom across the whole mesh")
	d.p.note("  offline: check's answer for every workload and client at once, alike ones grouped into classes")
	out, code, err := d.meshguard(ctx, "map", mapExample)
	if err != nil {
		return err
	} else if code != 0 {
		d.failf("meshguard map exited %d", code)
		return nil
	}
	if !strings.Contains(out, mapShows) {
		d.failf("meshguard map did not show %q", mapShows)
	}
	path := filepath.Join(d.Dir, mapFile)
	args := []string{"map", mapExample, "-o", mapFormat}
	d.p.line("%s", d.p.cmd(d.shownBin()+" "+strings.Join(args, " ")+" > "+path))
	cmd := exec.CommandContext(ctx, d.st.Meshguard.Bin, args...)
	cmd.Dir = d.Root
	page, err := cmd.Output()
	if err != nil {
		d.failf("meshguard map -o %s: %v", mapFormat, err)
		return nil
	}
	if err := os.WriteFile(path, page, 0o644); err != nil {
		return err
	}
	d.p.line("  the access map is written to %s (one self-contained page: open it in a browser)", d.p.bold(path))
	return nil
}
