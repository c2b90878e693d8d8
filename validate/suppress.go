package validate

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/rules"
)

// AnnotationIgnore is the annotation that accepts findings on one object on
// purpose. Its value is one or more entries separated by ";" or new lines:
//
//	CODE[,CODE...] [until YYYY-MM-DD]: reason
//
// e.g. "MG201: the shadowed rule documents intent; MG203 until 2027-01-31: open
// during the migration". A reason is required; an entry without one (MG051), or
// one that cannot be read (MG050), suppresses nothing. After its until date (the
// end of that day, UTC) an entry stops suppressing and is reported (MG053).
const AnnotationIgnore = "meshguard.io/ignore"

// The codes of findings about suppressions themselves. They can never be
// suppressed: they would hide the suppressions they are about.
const (
	CodeSuppressSyntax   = "MG050"
	CodeSuppressNoReason = "MG051"
	CodeSuppressRefused  = "MG052"
	CodeSuppressExpired  = "MG053"
	CodeSuppressUnused   = "MG054"
)

// Suppression is one accepted entry: the codes it suppresses and why.
type Suppression struct {
	Codes  []string
	Reason string
	// Expires is the first instant the entry no longer suppresses; zero: never.
	Expires time.Time
	// Entry is the 0-based position of the entry in the annotation or file.
	Entry int
}

// Covers reports whether the suppression accepts code.
func (s Suppression) Covers(code string) bool {
	for _, c := range s.Codes {
		if c == code {
			return true
		}
	}
	return false
}

// Suppressible reports whether a finding of code and severity may be suppressed.
// Errors may not: an error is what the mesh (its CRD, its webhook, or meshguard's
// webhook standing in for it) refuses, and a suppression cannot make the cluster
// accept the object, only make CI green while the apply fails. MG001 (an unknown
// field) may not either: `kubectl apply` validates fields strictly and refuses the
// object. Nor may the suppression codes MG050-MG059, which would hide themselves.
func Suppressible(code, severity string) bool {
	if severity == SeverityError || code == "MG001" {
		return false
	}
	return !strings.HasPrefix(code, "MG05")
}

// RuleSeverity looks up the severity of a code in a rule catalogue; ok is false
// for codes the catalogue does not have.
type RuleSeverity func(code string) (severity string, ok bool)

// SeverityLookup builds a RuleSeverity over a catalogue (rules.Catalogue() in
// every door; a smaller one in tests).
func SeverityLookup(catalogue []rules.Rule) RuleSeverity {
	m := make(map[string]string, len(catalogue))
	for _, r := range catalogue {
		m[r.Code] = r.Severity
	}
	return func(code string) (string, bool) {
		s, ok := m[code]
		return s, ok
	}
}

var (
	codeRE  = regexp.MustCompile(`^MG\d{3}$`)
	untilRE = regexp.MustCompile(`^until\s+(\d{4}-\d{2}-\d{2})$`)
)

// ParseIgnore reads the value of AnnotationIgnore at path (the annotation's field
// path). It returns the entries that suppress now, and warnings about the rest:
// MG050 unreadable, MG051 no reason, MG052 a code that cannot be suppressed (the
// entry's other codes still hold), MG053 expired. now decides expiry.
func ParseIgnore(value string, path *field.Path, rules RuleSeverity, now time.Time) ([]Suppression, field.ErrorList) {
	var out []Suppression
	var errs field.ErrorList
	for i, raw := range splitEntries(value) {
		s, err := parseEntry(raw, i, path, rules)
		if err != nil {
			errs = append(errs, err...)
		}
		if len(s.Codes) == 0 {
			continue
		}
		if !s.Expires.IsZero() && !now.Before(s.Expires) {
			errs = append(errs, warn(path, CodeSuppressExpired, fmt.Sprintf("the suppression of %s expired after %s; the findings are reported again (reason was: %s). Fix them, or renew the date if the reason still holds",
				strings.Join(s.Codes, ", "), s.Expires.AddDate(0, 0, -1).Format(time.DateOnly), s.Reason)))
			continue
		}
		out = append(out, s)
	}
	return out, errs
}

// splitEntries splits on ";" and new lines, dropping empty entries.
func splitEntries(v string) []string {
	var out []string
	for _, e := range strings.FieldsFunc(v, func(r rune) bool { return r == ';' || r == '\n' }) {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

func parseEntry(raw string, i int, path *field.Path, rules RuleSeverity) (Suppression, field.ErrorList) {
	s := Suppression{Entry: i}
	head, reason, found := strings.Cut(raw, ":")
	head, reason = strings.TrimSpace(head), strings.TrimSpace(reason)
	fields := strings.Fields(strings.ReplaceAll(head, ",", " "))
	var codes []string
	for j, f := range fields {
		if strings.EqualFold(f, "until") {
			m := untilRE.FindStringSubmatch(strings.Join(fields[j:], " "))
			if m == nil {
				return s, field.ErrorList{syntax(path, raw, "write the date as until YYYY-MM-DD")}
			}
			day, err := time.Parse(time.DateOnly, m[1])
			if err != nil {
				return s, field.ErrorList{syntax(path, raw, fmt.Sprintf("%q is not a date", m[1]))}
			}
			s.Expires = day.AddDate(0, 0, 1)
			break
		}
		codes = append(codes, strings.ToUpper(f))
	}
	if len(codes) == 0 {
		return s, field.ErrorList{syntax(path, raw, "an entry starts with the codes it suppresses")}
	}
	var errs field.ErrorList
	for _, c := range codes {
		sev, known := rules(c)
		switch {
		case !codeRE.MatchString(c) || !known:
			errs = append(errs, syntax(path, raw, fmt.Sprintf("%q is not a meshguard code (see `meshguard rules`)", c)))
		case !Suppressible(c, sev):
			errs = append(errs, warn(path, CodeSuppressRefused, fmt.Sprintf("%s cannot be suppressed: %s, so the suppression would only hide the reason an apply fails (see docs/lint.md#suppressions)", c, refusedWhy(c, sev))))
		default:
			s.Codes = append(s.Codes, c)
		}
	}
	if !found || reason == "" {
		errs = append(errs, warn(path, CodeSuppressNoReason, fmt.Sprintf("the suppression of %s gives no reason, so it suppresses nothing; write %q", strings.Join(codes, ", "), head+": why this is accepted")))
		s.Codes = nil
	}
	s.Reason = reason
	return s, errs
}

func refusedWhy(code, severity string) string {
	switch {
	case severity == SeverityError:
		return "it is an error, which the mesh or its API server refuses whatever the annotation says"
	case code == "MG001":
		return "kubectl apply validates fields strictly and refuses an unknown field"
	}
	return "it is about suppressions themselves"
}

func syntax(path *field.Path, raw, why string) *field.Error {
	return warn(path, CodeSuppressSyntax, fmt.Sprintf("cannot read the suppression %q: %s; the syntax is \"CODE[,CODE] [until YYYY-MM-DD]: reason\", entries separated by ';'", raw, why))
}

func warn(path *field.Path, code, msg string) *field.Error {
	e := field.Invalid(path, field.OmitValueType{}, msg)
	e.Origin = code
	return e
}

// ObjectSuppressions reads AnnotationIgnore from an object's annotations; nil,
// nil when there is none.
func ObjectSuppressions(annotations map[string]string, rules RuleSeverity, now time.Time) ([]Suppression, field.ErrorList) {
	v, ok := annotations[AnnotationIgnore]
	if !ok {
		return nil, nil
	}
	return ParseIgnore(v, field.NewPath("metadata", "annotations").Key(AnnotationIgnore), rules, now)
}

// Suppressed returns the first suppression that accepts a finding of code and
// severity, or nil.
func Suppressed(sups []Suppression, code, severity string) *Suppression {
	if !Suppressible(code, severity) {
		return nil
	}
	for i := range sups {
		if sups[i].Covers(code) {
			return &sups[i]
		}
	}
	return nil
}
