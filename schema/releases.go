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

// Source names where release r's CRDs were taken from ("kumahq/kuma v2.13.10", or
// "kumahq/kuma 348b6528bc23…" for a preview pinned to a commit), as its SOURCE.md
// says, so `meshguard version` tells a user on a patch release which tag the binary
// was checked against, and one trying a preview which commit; "" for a release
// without one.
func Source(r string) string {
	dir, ok := releaseDirs()[r]
	if !ok {
		return ""
	}
	data, err := fs.ReadFile(embedded, path.Join(dir, "SOURCE.md"))
	if err != nil {
		return ""
	}
	// The repository and tag or commit, as SOURCE.md words them: "(kumahq/kuma, tag
	// v2.13.10," or "(kumahq/kuma, commit 348b…,". A directory several releases share
	// names each release's tag; the one that ends the release's name is its own, else
	// the first.
	all := regexp.MustCompile(`\(([\w.-]+/[\w.-]+), (?:tag|commit) ([\w.-]+)`).FindAllSubmatch(data, -1)
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
