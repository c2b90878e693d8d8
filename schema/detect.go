package schema

import (
	"fmt"
	"sort"
	"strings"

	"github.com/meshguard/meshguard/api"
)

// A Mesh is one mesh whose release meshguard can detect in a cluster: the prefix
// of its embedded releases ("kuma-") and the API group of the CRDs that tell its
// releases apart. The Gateway API route CRDs a Linkerd release bundles are left
// out: users install Gateway API on their own, in another bundle.
type Mesh struct {
	// Name is how messages and flags call it ("kuma" → --kuma-version).
	Name  string
	Group string
}

// Meshes are the meshes whose releases are embedded, in the order detection reports
// them.
func Meshes() []Mesh {
	return []Mesh{{Name: "kuma", Group: api.KumaGroup}, {Name: "linkerd", Group: api.LinkerdGroup}}
}

// prefix is the prefix of the mesh's embedded release names.
func (m Mesh) prefix() string { return m.Name + "-" }

// ReleaseMatch is how the CRDs a cluster serves compare with one embedded
// release's, CRD by CRD of the mesh's group, by SchemaHash.
type ReleaseMatch struct {
	// Release is the embedded release ("kuma-2.13").
	Release string
	// Same, Differ and Missing count the release's CRDs installed with its schema,
	// installed with another, and not installed; Extra counts the installed CRDs of
	// the mesh that other releases have and this one does not.
	Same, Differ, Missing, Extra int
}

// Exact reports whether the cluster serves exactly the release's CRDs, schema for
// schema: the API server checks objects as that release's does.
func (m ReleaseMatch) Exact() bool {
	return m.Same > 0 && m.Differ == 0 && m.Missing == 0 && m.Extra == 0
}

// String says it in a few words for a log line.
func (m ReleaseMatch) String() string {
	if m.Exact() {
		return fmt.Sprintf("the %d CRDs of %s, schema for schema", m.Same, m.Release)
	}
	return fmt.Sprintf("closest to %s (%d same schemas, %d other, %d missing, %d it lacks)", m.Release, m.Same, m.Differ, m.Missing, m.Extra)
}

// Hashes are the SchemaHash of every CRD of a group, by CRD name: the embedded
// release's (EmbeddedHashes) or what a cluster serves.
type Hashes map[string]string

// EmbeddedHashes are the SchemaHash of every CRD of group in release r.
func EmbeddedHashes(r, group string) (Hashes, error) {
	crds, err := CRDs(r)
	if err != nil {
		return nil, err
	}
	out := Hashes{}
	for _, c := range crds {
		if c.Spec.Group != group {
			continue
		}
		h, err := SchemaHash(c)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", r, c.Name, err)
		}
		out[c.Name] = h
	}
	return out, nil
}

// MatchInstalled compares the CRDs a cluster serves (installed, of m's group) with
// every embedded release of m, best match first (see ReleaseHashes.Match).
func MatchInstalled(m Mesh, installed Hashes) ([]ReleaseMatch, error) {
	rh, err := EmbeddedReleases(m)
	if err != nil {
		return nil, err
	}
	return rh.Match(installed), nil
}

// ReleaseHashes are the CRD hashes (of the mesh's group) of each embedded release
// of one mesh, by release name: computed once per detection, since parsing and
// hashing the embedded CRDs is most of what detection costs besides the cluster.
type ReleaseHashes map[string]Hashes

// EmbeddedReleases hashes the CRDs of m's group in every embedded release of m,
// one release per goroutine.
func EmbeddedReleases(m Mesh) (ReleaseHashes, error) {
	var names []string
	for _, r := range releaseNames() {
		if strings.HasPrefix(r, m.prefix()) {
			names = append(names, r)
		}
	}
	hashes := make([]Hashes, len(names))
	errs := make([]error, len(names))
	eachParallel(len(names), func(i int) { hashes[i], errs[i] = EmbeddedHashes(names[i], m.Group) })
	out := ReleaseHashes{}
	for i, r := range names {
		if errs[i] != nil {
			return nil, errs[i]
		}
		out[r] = hashes[i]
	}
	return out, nil
}

// Names lists the CRD names any of the releases has, sorted: the CRDs detection
// reads from a cluster.
func (rh ReleaseHashes) Names() []string {
	seen := map[string]bool{}
	for _, h := range rh {
		for name := range h {
			seen[name] = true
		}
	}
	out := make([]string, 0, len(seen))
	for name := range seen {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Match compares installed with every release, best match first: exact ones,
// then by same schemas less the differences, then the newer release name. Nil
// when the cluster serves no CRD any release has.
func (rh ReleaseHashes) Match(installed Hashes) []ReleaseMatch {
	all := map[string]bool{}
	for _, name := range rh.Names() {
		all[name] = true
	}
	return matchHashes(rh, all, installed)
}

// matchHashes is MatchInstalled over the releases' hashes (embedded) and the names
// any of them has (all).
func matchHashes(embedded ReleaseHashes, all map[string]bool, installed Hashes) []ReleaseMatch {
	var out []ReleaseMatch
	known := 0
	for name := range installed {
		if all[name] {
			known++
		}
	}
	if known == 0 {
		return nil
	}
	for r, hashes := range embedded {
		m := ReleaseMatch{Release: r}
		for name, h := range hashes {
			switch got, ok := installed[name]; {
			case !ok:
				m.Missing++
			case got == h:
				m.Same++
			default:
				m.Differ++
			}
		}
		for name := range installed {
			if _, ok := hashes[name]; all[name] && !ok {
				m.Extra++
			}
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Exact() != b.Exact() {
			return a.Exact()
		}
		sa, sb := a.Same-a.Differ-a.Missing-a.Extra, b.Same-b.Differ-b.Missing-b.Extra
		if sa != sb {
			return sa > sb
		}
		return a.Release > b.Release
	})
	return out
}

// VersionOfTag maps the version a control plane reports (an image tag such as
// "2.13.10" or "v2.13.10", Linkerd's "edge-26.8.3" or "version-2.18.1") to the
// embedded release version of m it belongs to ("2.13"): the same version, or one
// followed by a patch or pre-release part. "" when no embedded release fits.
func VersionOfTag(m Mesh, tag string) string {
	tag = strings.TrimPrefix(tag, "v")
	best := ""
	for _, r := range releaseNames() {
		v, ok := strings.CutPrefix(r, m.prefix())
		if !ok {
			continue
		}
		if tag == v || strings.HasPrefix(tag, v+".") || strings.HasPrefix(tag, v+"-") {
			if len(v) > len(best) {
				best = v
			}
		}
	}
	return best
}
