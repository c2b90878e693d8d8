package lint

import (
	"fmt"
	"strings"
	"time"

	"github.com/meshguard/meshguard/engine"
	"github.com/meshguard/meshguard/validate"
)

// Kinds of suppression, as SARIF names them: on the object itself (the
// meshguard.io/ignore annotation) or outside it (an ignore file).
const (
	SuppressionInSource = "inSource"
	SuppressionExternal = "external"
)

// Suppression says that a finding was accepted on purpose, and by whom: it stays
// in JSON and SARIF output, marked, and never counts in the exit code or the
// summary's errors and warnings.
type Suppression struct {
	// Kind is SuppressionInSource (the annotation) or SuppressionExternal (an
	// ignore file).
	Kind string `json:"kind"`
	// Justification is the reason the suppression gives.
	Justification string `json:"justification"`
	// Source is where the suppression is written: the annotation, or
	// "<ignore file>:<line>".
	Source string `json:"source"`
	// Expires is the last day the suppression holds (YYYY-MM-DD), if it has one.
	Expires string `json:"expires,omitempty"`
}

// RuleSeverity looks a code up in the rules catalogue, for the doors that read
// suppressions: the engine's lookup, which the webhook's suppressions read too.
func RuleSeverity(code string) (string, bool) { return engine.CatalogueSeverity()(code) }

// objectKey identifies the object a finding is about, within one input: by its
// file, or for a rendered object by its render (findings on a rendered object
// name the patch or resource file that sets each field).
type objectKey struct{ file, kind, namespace, name string }

func keyOf(f *Finding) objectKey {
	if f.RenderedBy != "" {
		return objectKey{"render:" + f.RenderedBy, f.Kind, f.Namespace, f.Name}
	}
	return objectKey{f.File, f.Kind, f.Namespace, f.Name}
}

// objectSups are the annotation's suppressions of one object, and which of its
// codes were used.
type objectSups struct {
	sups []validate.Suppression
	used map[string]bool
	// at is a finding on the annotation, for MG054.
	at Finding
}

// suppressor applies the suppressions of one run.
type suppressor struct {
	file *IgnoreFile
	// partial is Options.Partial: no MG054 for ignore-file entries.
	partial bool
	objects map[objectKey]*objectSups
}

// now is the time expiry dates are judged against.
func (o Options) now() time.Time {
	if o.Now.IsZero() {
		return time.Now()
	}
	return o.Now
}

// annotationSuppressions reads the annotation of d: the findings about it, and
// the suppressions to apply (nil when none).
func annotationSuppressions(d *Document, o Options) ([]Finding, *objectSups) {
	if d.Object == nil {
		return nil, nil
	}
	ann := d.Object.GetAnnotations()
	if _, ok := ann[validate.AnnotationIgnore]; !ok {
		return nil, nil
	}
	sups, errs := validate.ObjectSuppressions(ann, RuleSeverity, o.now())
	fs := FindingsFor(d, errs, validate.SeverityWarning)
	if len(sups) == 0 {
		return fs, nil
	}
	at := FindingFor(d, validate.SeverityWarning, validate.CodeSuppressUnused, "metadata.annotations["+validate.AnnotationIgnore+"]", "")
	return fs, &objectSups{sups: sups, used: map[string]bool{}, at: at}
}

// apply marks the findings the run's suppressions accept and adds MG054 for
// suppressions that accepted nothing.
func (s *suppressor) apply(out []Finding) []Finding {
	var usedEntries map[int]bool
	if s.file != nil {
		usedEntries = map[int]bool{}
	}
	for i := range out {
		f := &out[i]
		if !validate.Suppressible(f.Code, f.Severity) {
			continue
		}
		if os := s.objects[keyOf(f)]; os != nil {
			if sup := validate.Suppressed(os.sups, f.Code, f.Severity); sup != nil {
				f.Suppression = &Suppression{Kind: SuppressionInSource, Justification: sup.Reason,
					Source: "metadata.annotations[" + validate.AnnotationIgnore + "]", Expires: lastDay(sup.Expires)}
				os.used[f.Code] = true
				continue
			}
		}
		if s.file == nil {
			continue
		}
		for j := range s.file.Entries {
			e := &s.file.Entries[j]
			if e.matches(f) {
				f.Suppression = &Suppression{Kind: SuppressionExternal, Justification: e.Reason,
					Source: fmt.Sprintf("%s:%d", s.file.Path, e.Line), Expires: lastDay(e.Expires)}
				usedEntries[j] = true
				break
			}
		}
	}
	return append(out, s.unused(usedEntries)...)
}

// unused reports suppressions that accepted no finding: stale ones hide the
// next, real finding of that code.
func (s *suppressor) unused(usedEntries map[int]bool) []Finding {
	var out []Finding
	for _, os := range s.objects {
		var codes []string
		for _, sup := range os.sups {
			for _, c := range sup.Codes {
				if !os.used[c] {
					codes = append(codes, c)
				}
			}
		}
		if len(codes) > 0 {
			f := os.at
			f.Message = fmt.Sprintf("the annotation suppresses %s, but the object has no such finding; remove the stale suppression so it cannot hide a future one", strings.Join(codes, ", "))
			out = append(out, f)
		}
	}
	if s.file != nil {
		for j, e := range s.file.Entries {
			if !usedEntries[j] && !s.partial {
				out = append(out, Finding{File: s.file.Path, Line: e.Line, Severity: validate.SeverityWarning, Code: validate.CodeSuppressUnused,
					Field: fmt.Sprintf("suppressions[%d]", j), Message: fmt.Sprintf("the suppression of %s matched no finding in this run; remove it if it is stale", strings.Join(e.Codes, ", "))})
			}
		}
		out = append(out, s.file.Problems...)
	}
	return out
}

func lastDay(expires time.Time) string {
	if expires.IsZero() {
		return ""
	}
	return expires.AddDate(0, 0, -1).Format(time.DateOnly)
}
