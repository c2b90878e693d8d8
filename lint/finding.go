package lint

import (
	"cmp"
	"slices"
	"strings"

	"github.com/meshguard/meshguard/rules"
)

// Finding is one problem in one document, in the shape every output format and
// the JSON contract of `meshguard lint -o json` share.
type Finding struct {
	// File and Line locate the finding for editors and CI annotations.
	File string `json:"file"`
	Line int    `json:"line"`
	// APIVersion, Kind, Namespace and Name identify the object, empty for documents
	// that could not be parsed.
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name,omitempty"`
	// Severity is "error" (the webhook denies) or "warning" (it admits and warns).
	Severity string `json:"severity"`
	// Code is the stable rule code (MG000 for parse errors).
	Code string `json:"code"`
	// Field is the Kubernetes field path, empty for object-level problems.
	Field string `json:"field"`
	// Message says what is wrong and what to do.
	Message string `json:"message"`
	// RenderedBy is the kustomization file whose build, or the Chart.yaml whose
	// render, held the object; empty for objects read from files as they are.
	// File and Line then point into the object's source file (see docs/lint.md
	// for how exact that is).
	RenderedBy string `json:"renderedBy,omitempty"`
	// RenderedLine is the line of Field in the render's output: the build as
	// `kubectl kustomize` prints it, or the rendered Helm template; 0 when
	// RenderedBy is empty.
	RenderedLine int `json:"renderedLine,omitempty"`
	// Suppression is set when the finding was accepted on purpose (the
	// meshguard.io/ignore annotation or an ignore file): it is reported, marked,
	// and counts neither in Summary.Errors/Warnings nor in the exit code.
	Suppression *Suppression `json:"suppression,omitempty"`
}

// Rule is the finding as rules.Finding: the object it names and what is wrong,
// without where the linter read it, for code that works across doors.
func (f Finding) Rule() rules.Finding {
	return rules.Finding{APIVersion: f.APIVersion, Kind: f.Kind, Namespace: f.Namespace, Name: f.Name,
		Severity: f.Severity, Code: f.Code, Field: f.Field, Message: f.Message}
}

// FromRule places a rules.Finding at file and line (at least 1, as editors
// count), for an engine's finding the linter reports.
func FromRule(rf rules.Finding, file string, line int) Finding {
	return Finding{File: file, Line: max(line, 1), APIVersion: rf.APIVersion, Kind: rf.Kind, Namespace: rf.Namespace,
		Name: rf.Name, Severity: rf.Severity, Code: rf.Code, Field: rf.Field, Message: rf.Message}
}

// Summary counts what was linted, for the last line of text output and for CI.
type Summary struct {
	Documents int `json:"documents"`
	Errors    int `json:"errors"`
	Warnings  int `json:"warnings"`
	// Skipped counts documents and files left out because they are not
	// Kubernetes objects (or no kustomization uses them); they never fail a run.
	Skipped int `json:"skipped"`
	// Suppressed counts findings accepted by a suppression; Errors and Warnings
	// do not include them.
	Suppressed int `json:"suppressed,omitempty"`
}

// SortFindings orders findings by file, line, code and field, keeping the input
// order of ties, so output is deterministic and diffs between runs are small.
func SortFindings(fs []Finding) {
	slices.SortStableFunc(fs, compareFindings)
}

// compareFindings is SortFindings' order. It compares the next key only when
// the ones before it tie (cmp.Or compared all four every time, a run's 588,000
// findings each twenty-odd times).
func compareFindings(a, b Finding) int {
	if c := strings.Compare(a.File, b.File); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Line, b.Line); c != 0 {
		return c
	}
	if c := strings.Compare(a.Code, b.Code); c != 0 {
		return c
	}
	return strings.Compare(a.Field, b.Field)
}
