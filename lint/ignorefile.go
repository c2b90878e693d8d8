package lint

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/meshguard/meshguard/validate"
)

// MaxIgnoreFileBytes bounds an ignore file; a real one is a few KiB.
const MaxIgnoreFileBytes = 1 << 20

// IgnoreFile is a suppression file (--ignore-file): findings accepted on purpose
// for objects matched by kind, namespace and name, kept in the repository next to
// the policies instead of on each object. See docs/lint.md#suppressions.
type IgnoreFile struct {
	// Path is the file as given, for findings about its entries.
	Path    string
	Entries []IgnoreEntry
	// Problems are findings about the file's own entries (MG050-MG053), reported
	// with the run's findings.
	Problems []Finding
}

// IgnoreEntry is one entry of an ignore file.
type IgnoreEntry struct {
	// Codes are the codes the entry suppresses.
	Codes []string
	// Kind, Namespace and Name are path.Match globs ("" matches everything).
	Kind, Namespace, Name string
	Reason                string
	// Expires is the first instant the entry no longer suppresses; zero: never.
	Expires time.Time
	// Line is where the entry starts in the file.
	Line int
}

// ignoreKeys are the keys an entry may have.
var ignoreKeys = map[string]bool{"code": true, "codes": true, "kind": true, "namespace": true, "name": true, "reason": true, "expires": true}

// ReadIgnoreFile reads and checks a suppression file. A file that cannot be read
// or is not a YAML mapping with a suppressions list is an error (the run cannot
// honour it); problems with single entries become findings in Problems, and those
// entries suppress nothing.
func ReadIgnoreFile(file string, rules validate.RuleSeverity, now time.Time) (*IgnoreFile, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading the ignore file: %w", err)
	}
	return ParseIgnoreFile(file, data, rules, now)
}

// ParseIgnoreFile is ReadIgnoreFile for the content of file, already read.
func ParseIgnoreFile(file string, data []byte, rules validate.RuleSeverity, now time.Time) (f *IgnoreFile, err error) {
	if len(data) > MaxIgnoreFileBytes {
		return nil, fmt.Errorf("%s: an ignore file may be at most %d KiB", file, MaxIgnoreFileBytes>>10)
	}
	defer func() {
		// yaml.v3 panics on some hostile input; that is a bad file, not a crash.
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("%s: not YAML: %v", file, r)
		}
	}()
	var root yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&root); err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: not YAML: %w", file, err)
	}
	f = &IgnoreFile{Path: file}
	if len(root.Content) == 0 {
		return f, nil
	}
	list, err := suppressionsList(file, root.Content[0])
	if err != nil {
		return nil, err
	}
	for i, item := range list {
		f.entry(item, i, rules, now)
	}
	return f, nil
}

// suppressionsList finds the top-level suppressions sequence.
func suppressionsList(file string, doc *yaml.Node) ([]*yaml.Node, error) {
	if doc.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: an ignore file is a mapping with a suppressions list", file, doc.Line)
	}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		if k.Value != "suppressions" {
			return nil, fmt.Errorf("%s:%d: unknown key %q; an ignore file has only suppressions", file, k.Line, k.Value)
		}
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			return nil, nil
		}
		if v.Kind != yaml.SequenceNode {
			return nil, fmt.Errorf("%s:%d: suppressions must be a list", file, v.Line)
		}
		return v.Content, nil
	}
	return nil, nil
}

// entry reads one list item into Entries, or a finding into Problems.
func (f *IgnoreFile) entry(item *yaml.Node, i int, rules validate.RuleSeverity, now time.Time) {
	problem := func(code, msg string) {
		f.Problems = append(f.Problems, Finding{File: f.Path, Line: item.Line, Severity: validate.SeverityWarning, Code: code,
			Field: fmt.Sprintf("suppressions[%d]", i), Message: msg})
	}
	if item.Kind != yaml.MappingNode {
		problem(validate.CodeSuppressSyntax, "a suppression is a mapping with code, kind, namespace, name, reason and expires")
		return
	}
	e := IgnoreEntry{Line: item.Line}
	var expires string
	for j := 0; j+1 < len(item.Content); j += 2 {
		k, v := item.Content[j].Value, item.Content[j+1]
		if !ignoreKeys[k] {
			problem(validate.CodeSuppressSyntax, fmt.Sprintf("unknown key %q; a suppression has code (or codes), kind, namespace, name, reason and expires", k))
			return
		}
		var err error
		switch k {
		case "code":
			e.Codes = append(e.Codes, strings.ToUpper(strings.TrimSpace(v.Value)))
		case "codes":
			var cs []string
			err = v.Decode(&cs)
			for _, c := range cs {
				e.Codes = append(e.Codes, strings.ToUpper(strings.TrimSpace(c)))
			}
		case "kind":
			e.Kind = v.Value
		case "namespace":
			e.Namespace = v.Value
		case "name":
			e.Name = v.Value
		case "reason":
			e.Reason = strings.TrimSpace(v.Value)
		case "expires":
			expires = v.Value
		}
		if err != nil {
			problem(validate.CodeSuppressSyntax, fmt.Sprintf("%s: %v", k, err))
			return
		}
	}
	for _, g := range []string{e.Kind, e.Namespace, e.Name} {
		if _, err := path.Match(g, ""); err != nil {
			problem(validate.CodeSuppressSyntax, fmt.Sprintf("%q is not a valid glob: %v", g, err))
			return
		}
	}
	if expires != "" {
		day, err := time.Parse(time.DateOnly, expires)
		if err != nil {
			problem(validate.CodeSuppressSyntax, fmt.Sprintf("expires %q is not a date; write YYYY-MM-DD", expires))
			return
		}
		e.Expires = day.AddDate(0, 0, 1)
	}
	// The codes and the reason are checked as the annotation's are, with one
	// message for both.
	head := strings.Join(e.Codes, ",")
	if !e.Expires.IsZero() {
		head += " until " + expires
	}
	sups, errs := validate.ParseIgnore(head+": "+e.Reason, nil, rules, now)
	for _, err := range errs {
		problem(err.Origin, strings.ReplaceAll(err.Detail, "\"CODE[,CODE] [until YYYY-MM-DD]: reason\", entries separated by ';'", "code, kind, namespace, name, reason and expires (docs/lint.md#suppressions)"))
	}
	if len(e.Codes) == 0 && len(errs) == 0 {
		problem(validate.CodeSuppressSyntax, "a suppression names the codes it suppresses (code: MG201)")
	}
	if len(sups) == 1 {
		e.Codes = sups[0].Codes
		f.Entries = append(f.Entries, e)
	}
}

// matches reports whether the entry accepts f.
func (e *IgnoreEntry) matches(f *Finding) bool {
	if f.Kind == "" && f.Name == "" {
		return false // not about an object (a parse error)
	}
	return glob(e.Kind, f.Kind) && glob(e.Namespace, f.Namespace) && glob(e.Name, f.Name) && validate.Suppression{Codes: e.Codes}.Covers(f.Code)
}

func glob(pattern, s string) bool {
	if pattern == "" {
		return true
	}
	ok, _ := path.Match(pattern, s)
	return ok
}
