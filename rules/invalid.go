package rules

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
)

// invalidSet is a directory examples/invalid/<set>/ of this package and the
// repository directory generated from it.
type invalidSet struct{ set, repoDir string }

// invalidSets lists the sets: the demo applies the repository's copies and the
// tests lint them, so they are generated from these, and a test fails when they
// drift.
func invalidSets() []invalidSet {
	return []invalidSet{{"kuma", "examples/invalid"}, {"linkerd", "examples/linkerd/invalid"}}
}

// Invalid is one invalid example object: the repository file generated from it,
// its content, and the findings its "# expect: CODE FIELD" lines promise.
type Invalid struct {
	// Path is the file's repository path, such as examples/invalid/from-and-to.yaml.
	Path string
	Body string
	// Expect holds one "CODE FIELD" pair per "# expect:" line.
	Expect [][2]string
}

// InvalidExamples returns the invalid example files in path order, each with the
// findings it expects; every expected code must be in the catalogue.
func InvalidExamples() ([]Invalid, error) {
	expectLine := regexp.MustCompile(`(?m)^# expect: (MG\d+) (\S+)$`)
	var out []Invalid
	for _, d := range invalidSets() {
		src := path.Join("examples/invalid", d.set)
		entries, err := fs.ReadDir(files, src)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
				return nil, fmt.Errorf("%s/%s: only .yaml files belong there", src, e.Name())
			}
			b, err := fs.ReadFile(files, path.Join(src, e.Name()))
			if err != nil {
				return nil, err
			}
			inv := Invalid{Path: path.Join(d.repoDir, e.Name()), Body: string(b)}
			for _, m := range expectLine.FindAllStringSubmatch(inv.Body, -1) {
				if _, ok := Lookup(m[1]); !ok {
					return nil, fmt.Errorf("%s/%s: expects %s, which the catalogue does not have", src, e.Name(), m[1])
				}
				inv.Expect = append(inv.Expect, [2]string{m[1], m[2]})
			}
			if len(inv.Expect) == 0 {
				return nil, fmt.Errorf("%s/%s: no \"# expect: CODE FIELD\" line", src, e.Name())
			}
			out = append(out, inv)
		}
	}
	return out, nil
}

// InvalidDirs returns the repository directories InvalidExamples generates,
// so a check can find files there that no example generates.
func InvalidDirs() []string {
	var out []string
	for _, d := range invalidSets() {
		out = append(out, d.repoDir)
	}
	return out
}
