package lint

import (
	"github.com/meshguard/meshguard/api"
)

// Stage is a cross-document check. Lint keeps no document's tree once its verdict
// is made, so a stage remembers only what it needs: Summarize extracts it from a
// checked document while the tree is still there (concurrently, for documents in
// any order), Add receives the summaries in input order, and Findings reports once
// every document was added.
type Stage interface {
	// Summarize returns what the stage keeps of c, or nil for nothing. It must not
	// keep c.Doc or c.Object.
	Summarize(c Checked) any
	// Add takes a non-nil result of Summarize; documents come in input order.
	Add(summary any)
	// Findings are the stage's findings over everything added.
	Findings() []Finding
}

// Anchor is what a finding needs of a document once its tree is gone: the file,
// the object's identity and the lines of the field paths a stage may report.
type Anchor struct {
	File                              string
	Line                              int
	APIVersion, Kind, Namespace, Name string
	// RenderedBy is the kustomization or chart that rendered the document, as in
	// Finding; "" for a document read as it is.
	RenderedBy string
	lines      []pathLine
}

// pathLine is where one field path is, as FindingFor would say; an anchor has a
// handful, so a slice costs less than a map.
type pathLine struct {
	path     string
	file     string
	line     int
	rendered int // line in the render's output; 0 when not rendered
}

// NewAnchor records d's identity and the places of paths (see FindingFor).
func NewAnchor(d *Document, paths ...string) Anchor {
	file, line := d.locate("")
	a := Anchor{File: file, Line: line, lines: make([]pathLine, len(paths))}
	if d.Object != nil {
		a.APIVersion, a.Kind = d.Object.GetAPIVersion(), d.Object.GetKind()
		a.Namespace, a.Name = d.Object.GetNamespace(), d.Object.GetName()
	}
	if d.Rendered != nil {
		a.RenderedBy = d.Rendered.By
	}
	for i, p := range paths {
		pl := pathLine{path: p}
		pl.file, pl.line = d.locate(p)
		if d.Rendered != nil {
			pl.rendered = max(d.Rendered.LineOf(p), 1)
		}
		a.lines[i] = pl
	}
	return a
}

// Finding is FindingFor on the anchored document; a path that was not recorded
// points at the document.
func (a Anchor) Finding(severity, code, fieldPath, msg string) Finding {
	f := Finding{File: a.File, Line: max(a.Line, 1), Severity: severity, Code: code, Field: fieldPath, Message: msg,
		APIVersion: a.APIVersion, Kind: a.Kind, Namespace: a.Namespace, Name: a.Name, RenderedBy: a.RenderedBy}
	if a.RenderedBy != "" {
		f.RenderedLine = 1
	}
	for _, pl := range a.lines {
		if pl.path == fieldPath {
			f.File, f.Line, f.RenderedLine = pl.file, max(pl.line, 1), pl.rendered
			break
		}
	}
	return f
}

// CrossDocument returns the stages `meshguard lint` runs over the whole input: the
// RBAC analysis of MeshTrafficPermissions, Linkerd Server conflicts, routes whose
// parent EgressNetwork is missing, Servers with several rate-limit policies and
// references that resolve to nothing among the input's objects (see
// CrossDocumentInventory for more objects to resolve against). s are the
// deployment settings and ns the namespace of documents that name none.
func CrossDocument(s api.Settings, ns string) func() []Stage {
	return CrossDocumentInventory(s, ns, &Inventory{})
}
