package schema

import (
	"io/fs"
	"path"
	"regexp"
	"strings"
)

// Releases lists the names of the embedded CRD sets ("kuma-2.13", "kuma-2.14",
// "kuma-3.0-preview", "linkerd-edge-26.8.3"), sorted, so `meshguard version` can say what a binary
// checks against.
func Releases() []string { return releaseNames() }

// sourceRef is how a SOURCE.md names where its files come from: "(kumahq/kuma, tag
// v2.13.10," for a tagged release, "(kumahq/kuma, commit 0123abc," for one pinned to
// a commit of a branch (a preview).
var sourceRef = regexp.MustCompile(`\(([\w.-]+/[\w.-]+), (?:tag|commit) ([\w.-]+)`)

// Source names where release r's CRDs were taken from ("kumahq/kuma v2.13.10", or
// the commit of a preview), as its SOURCE.md says, so `meshguard version` tells a
// user on a patch release which tag the binary was checked against; "" for a
// release without one.
func Source(r string) string {
	dir, ok := releaseDirs()[r]
	if !ok {
		return ""
	}
	data, err := fs.ReadFile(embedded, path.Join(dir, "SOURCE.md"))
	if err != nil {
		return ""
	}
	// A directory several releases share names each release's tag; the one that
	// ends the release's name is its own, else the first.
	all := sourceRef.FindAllSubmatch(data, -1)
	if all == nil {
		return ""
	}
	m := all[0]
	for _, c := range all {
		if strings.HasSuffix(r, "-"+string(c[2])) {
			m = c
			break
		}
	}
	return string(m[1]) + " " + string(m[2])
}
