// Package rules is the one catalogue of meshguard's finding codes and the one
// finding type that names its object. It is a leaf (no first-party imports) so
// that every engine and every door can read it: the codes, their severities,
// summaries and flags are data in catalogue.yaml, and each code's bad and good
// example is a real YAML file under examples/<code>/, all embedded in the binary.
// `meshguard rules`, docs/rules.md, SARIF's rule table, the suppression reader and
// the executable-examples tests read this package, so a new code is documented
// everywhere by adding it here once.
package rules

import (
	"cmp"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"
)

// Severities of findings.
const (
	// SeverityError is what the mesh refuses: the webhook denies, the linter fails.
	SeverityError = "error"
	// SeverityWarning is admitted with a warning and printed by the linter.
	SeverityWarning = "warning"
)

// Meshes a rule can be about.
const (
	// MeshKuma is the kuma.io family and the Kuma labels meshguard owns.
	MeshKuma = "kuma"
	// MeshLinkerd is policy.linkerd.io, Linkerd's annotations and the Gateway API
	// routes parented to Linkerd objects.
	MeshLinkerd = "linkerd"
)

// Rule documents one code: what it means, how severe it is and a bad and a good
// example. The examples are executable: a test lints each and expects exactly
// this verdict.
type Rule struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Summary  string `json:"summary"`
	// Mesh is the one mesh whose objects the code is about, MeshKuma or
	// MeshLinkerd; empty for codes about any object (parsing, suppressions).
	Mesh string `json:"mesh,omitempty"`
	// Flags, when not empty, is the `meshguard lint` flag line the examples need
	// (they change what the code finds, such as --mode zone).
	Flags string `json:"flags,omitempty"`
	// Bad and Good are the contents of examples/<code>/bad.yaml and good.yaml.
	Bad  string `json:"-"`
	Good string `json:"-"`
}

// Finding is one problem about one object: the object it names, the code, its
// severity, the field path and the message. Doors convert their own findings
// (lint's adds file and line) to and from it.
type Finding struct {
	// APIVersion, Kind, Namespace and Name identify the object; empty for a
	// document that could not be parsed.
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name,omitempty"`
	// Severity is SeverityError or SeverityWarning.
	Severity string `json:"severity"`
	// Code is the stable rule code.
	Code string `json:"code"`
	// Field is the Kubernetes field path, empty for object-level problems.
	Field string `json:"field"`
	// Message says what is wrong and what to do.
	Message string `json:"message"`
}

//go:embed catalogue.yaml examples
var files embed.FS

// loaded is the catalogue parsed once: the embedded files never change, so
// this is constant data, not state.
var loaded = sync.OnceValues(func() ([]Rule, error) { return parse(files) })

// Load returns every rule in code order. It fails only if the embedded files are
// malformed, which this package's tests rule out.
func Load() ([]Rule, error) {
	rs, err := loaded()
	return slices.Clone(rs), err
}

// Catalogue is Load for callers that cannot report an error: the embedded
// catalogue is checked by this package's tests, so it always loads.
func Catalogue() []Rule {
	rs, _ := Load()
	return rs
}

// Lookup returns the rule of code; ok is false for a code meshguard does not have.
func Lookup(code string) (r Rule, ok bool) {
	rs, _ := loaded()
	i, ok := slices.BinarySearchFunc(rs, code, func(r Rule, c string) int { return compareCodes(r.Code, c) })
	if !ok {
		return Rule{}, false
	}
	return rs[i], true
}

// Number is the number of a code such as MG201; -1 when it has none, so a
// malformed code sorts first where a test sees it.
func Number(code string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(code, "MG"))
	if err != nil {
		return -1
	}
	return n
}

// compareCodes orders codes by number (MG201 before MG301), then by text.
func compareCodes(a, b string) int {
	return cmp.Or(cmp.Compare(Number(a), Number(b)), cmp.Compare(a, b))
}

// parse reads catalogue.yaml and every code's examples from fsys, and checks
// what the docs and tests rely on: known severities, one line of summary,
// codes in strictly increasing order, both examples present.
func parse(fsys fs.FS) ([]Rule, error) {
	raw, err := fs.ReadFile(fsys, "catalogue.yaml")
	if err != nil {
		return nil, err
	}
	var rs []Rule
	if err := yaml.UnmarshalStrict(raw, &rs); err != nil {
		return nil, fmt.Errorf("catalogue.yaml: %w", err)
	}
	for i := range rs {
		r := &rs[i]
		where := fmt.Sprintf("catalogue.yaml[%d] (%s)", i, r.Code)
		switch {
		case Number(r.Code) < 0 || !strings.HasPrefix(r.Code, "MG"):
			return nil, fmt.Errorf("%s.code: not MG followed by a number", where)
		case r.Severity != SeverityError && r.Severity != SeverityWarning:
			return nil, fmt.Errorf("%s.severity: %q, want %s or %s", where, r.Severity, SeverityError, SeverityWarning)
		case r.Mesh != "" && r.Mesh != MeshKuma && r.Mesh != MeshLinkerd:
			return nil, fmt.Errorf("%s.mesh: %q, want %s, %s or none", where, r.Mesh, MeshKuma, MeshLinkerd)
		case r.Summary == "" || strings.Contains(r.Summary, "\n"):
			return nil, fmt.Errorf("%s.summary: want one line of text", where)
		case i > 0 && compareCodes(rs[i-1].Code, r.Code) >= 0:
			return nil, fmt.Errorf("%s.code: after %s; codes are listed once, in number order", where, rs[i-1].Code)
		}
		if r.Bad, err = example(fsys, r.Code, "bad.yaml"); err != nil {
			return nil, err
		}
		if r.Good, err = example(fsys, r.Code, "good.yaml"); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// example reads examples/<code>/<name>, which must not be empty.
func example(fsys fs.FS, code, name string) (string, error) {
	p := path.Join("examples", code, name)
	b, err := fs.ReadFile(fsys, p)
	if err != nil {
		return "", fmt.Errorf("%s: every code has a bad and a good example: %w", code, err)
	}
	if len(b) == 0 {
		return "", fmt.Errorf("%s is empty", p)
	}
	return string(b), nil
}
