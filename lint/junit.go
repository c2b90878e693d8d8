package lint

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/meshguard/meshguard/validate"
)

// ObjectRef names one linted object and where it is, for reports that list
// every object and not only those with findings (JUnit).
type ObjectRef struct {
	File                              string
	Line                              int
	APIVersion, Kind, Namespace, Name string
	RenderedBy                        string
}

// key is what a finding and the object it is about have in common.
func (r ObjectRef) key() string {
	return strings.Join([]string{r.APIVersion, r.Kind, r.Namespace, r.Name, r.RenderedBy}, "\x00")
}

func findingObject(f Finding) ObjectRef {
	return ObjectRef{File: f.File, Line: f.Line, APIVersion: f.APIVersion, Kind: f.Kind, Namespace: f.Namespace, Name: f.Name, RenderedBy: f.RenderedBy}
}

// Objects records every object of the kinds meshguard checks that a run sees,
// through a cross-document stage (see Stage), so a report can show the objects
// that passed. Safe for the stages of several render groups at once.
type Objects struct {
	mu   sync.Mutex
	refs []ObjectRef
}

// Stage returns a stage that records objects into o and reports nothing.
func (o *Objects) Stage() Stage { return objectStage{o} }

// List returns the objects recorded so far, in the order they were added.
func (o *Objects) List() []ObjectRef {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.refs)
}

type objectStage struct{ o *Objects }

func (s objectStage) Summarize(c Checked) any {
	if c.Kind == nil {
		return nil
	}
	a := NewAnchor(c.Doc)
	return ObjectRef{File: a.File, Line: a.Line, APIVersion: a.APIVersion, Kind: a.Kind, Namespace: a.Namespace, Name: a.Name, RenderedBy: a.RenderedBy}
}

func (s objectStage) Add(v any) {
	s.o.mu.Lock()
	defer s.o.mu.Unlock()
	s.o.refs = append(s.o.refs, v.(ObjectRef))
}

func (objectStage) Findings() []Finding { return nil }

// The JUnit XML elements, in the shape of the common schema (Jenkins, GitLab,
// Azure DevOps and the JUnit report actions read it): testsuites of testcases,
// each with failures, errors and output.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string         `xml:"name,attr"`
	Classname string         `xml:"classname,attr"`
	Time      string         `xml:"time,attr"`
	Failures  []junitProblem `xml:"failure,omitempty"`
	Errors    []junitProblem `xml:"error,omitempty"`
	SystemOut string         `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit prints a JUnit XML report: one testsuite per file, one testcase per
// object (objects lists the objects that were linted; objects with findings are
// added when missing), a failure per finding at or above failOn ("error",
// "warning"; "none" fails nothing), an error per document that could not be read
// (MG000), and the findings below failOn as the testcase's output. Suppressed
// findings are left out.
func WriteJUnit(w io.Writer, fs []Finding, objects []ObjectRef, failOn string) error {
	cases := map[string]*junitCase{}
	var order []ObjectRef
	caseOf := func(r ObjectRef) *junitCase {
		k := r.key()
		if r.Kind == "" {
			k = fmt.Sprintf("%s\x00%d", r.File, r.Line)
		}
		if c, ok := cases[k]; ok {
			return c
		}
		c := &junitCase{Name: caseName(r), Classname: r.File, Time: "0"}
		cases[k] = c
		order = append(order, r)
		return c
	}
	for _, r := range objects {
		caseOf(r)
	}
	for _, f := range fs {
		if f.Suppression != nil {
			continue
		}
		c := caseOf(findingObject(f))
		text := fmt.Sprintf("%s:%d: %s %s %s%s", f.File, max(f.Line, 1), f.Severity, f.Code, fieldPrefix(f), oneLine(f.Message)+renderedNote(f))
		p := junitProblem{Message: f.Code + " " + fieldPrefix(f) + oneLine(f.Message), Type: f.Code, Text: text}
		switch {
		case f.Code == validate.CodeParse:
			c.Errors = append(c.Errors, p)
		case FailsOn(f.Severity, failOn):
			c.Failures = append(c.Failures, p)
		default:
			c.SystemOut += text + "\n"
		}
	}
	return writeJUnitSuites(w, order, cases)
}

// writeJUnitSuites groups the testcases by file, files in name order.
func writeJUnitSuites(w io.Writer, order []ObjectRef, cases map[string]*junitCase) error {
	bySuite := map[string]*junitSuite{}
	var names []string
	for _, r := range order {
		k := r.key()
		if r.Kind == "" {
			k = fmt.Sprintf("%s\x00%d", r.File, r.Line)
		}
		c := cases[k]
		s, ok := bySuite[r.File]
		if !ok {
			s = &junitSuite{Name: r.File, Time: "0"}
			bySuite[r.File] = s
			names = append(names, r.File)
		}
		s.Cases = append(s.Cases, *c)
		s.Tests++
		if len(c.Failures) > 0 {
			s.Failures++
		}
		if len(c.Errors) > 0 {
			s.Errors++
		}
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(a, b) })
	out := junitSuites{Name: "meshguard lint"}
	for _, n := range names {
		s := bySuite[n]
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
		out.Suites = append(out.Suites, *s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// FailsOn says whether a finding of severity makes a run with --fail-on failOn
// fail: errors unless failOn is "none", warnings only with "warning". The exit
// code and the JUnit failures use it, so they cannot disagree.
func FailsOn(severity, failOn string) bool {
	switch failOn {
	case "none":
		return false
	case validate.SeverityWarning:
		return severity == validate.SeverityError || severity == validate.SeverityWarning
	}
	return severity == validate.SeverityError
}

func fieldPrefix(f Finding) string {
	if f.Field == "" {
		return ""
	}
	return f.Field + ": "
}

// caseName names an object's testcase: "Kind namespace/name", or the place of a
// document that is not an object.
func caseName(r ObjectRef) string {
	if r.Kind == "" {
		return fmt.Sprintf("%s:%d", r.File, max(r.Line, 1))
	}
	name := r.Name
	if r.Namespace != "" {
		name = r.Namespace + "/" + name
	}
	if r.RenderedBy != "" {
		name += " (rendered by " + r.RenderedBy + ")"
	}
	return r.Kind + " " + name
}
