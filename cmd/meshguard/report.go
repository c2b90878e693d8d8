package main

import (
	"errors"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/meshguard/meshguard/lint"
	"github.com/meshguard/meshguard/rules"
)

// reportOutput is one report a lint or audit run writes: a format, and the file
// it goes to ("" for standard output).
type reportOutput struct {
	format format
	path   string
}

// parseOutputs reads the -o value of the doors that report findings: a
// comma-separated list of FORMAT or FORMAT=FILE, so one run can print text for
// the log and write SARIF and a Markdown summary to files. At most one report
// goes to standard output, and no file is named twice.
func parseOutputs(value string) ([]reportOutput, error) {
	var out []reportOutput
	stdout, files := 0, map[string]bool{}
	for item := range strings.SplitSeq(value, ",") {
		name, path, hasPath := strings.Cut(strings.TrimSpace(item), "=")
		if err := checkOutput(name, findingFormats()); err != nil {
			return nil, usageErr("--output: %q: format must be %s, optionally =FILE (got %q)", item, oneOf(formatNames(findingFormats())), name)
		}
		switch {
		case hasPath && path == "":
			return nil, usageErr("--output: %q names no file after '='", item)
		case !hasPath:
			stdout++
		case files[path]:
			return nil, usageErr("--output: file %s is named twice", path)
		default:
			files[path] = true
		}
		out = append(out, reportOutput{format: format(name), path: path})
	}
	if stdout > 1 {
		return nil, usageErr("--output: %q sends %d reports to standard output; give all but one a file (FORMAT=FILE)", value, stdout)
	}
	return out, nil
}

// wants says whether one of outs is in format f.
func wants(outs []reportOutput, f format) bool {
	for _, o := range outs {
		if o.format == f {
			return true
		}
	}
	return false
}

// report is everything a lint or audit run hands to its output formats.
type report struct {
	findings []lint.Finding
	summary  lint.Summary
	skipped  []lint.Skip
	// objects are the objects linted, for JUnit; nil when not recorded.
	objects []lint.ObjectRef
	failOn  string
	// color and showSuppressed apply to text on standard output.
	color, showSuppressed bool
}

// writeReports writes r in every format of outs. Files are created (truncated);
// a file that cannot be written is an error after the other reports are
// written, so the log still shows the findings.
func writeReports(s streams, outs []reportOutput, r report) error {
	var errs []error
	for _, o := range outs {
		if o.path == "" {
			errs = append(errs, writeReport(s.out, o.format, r))
			continue
		}
		f, err := os.Create(o.path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		file := r
		file.color = false
		errs = append(errs, writeReport(f, o.format, file), f.Close())
	}
	return errors.Join(errs...)
}

// writeReport writes r in one format.
func writeReport(w io.Writer, f format, r report) error {
	switch f {
	case formatText:
		fs := r.findings
		if !r.showSuppressed {
			fs = lint.Unsuppressed(fs)
		}
		return lint.WriteText(w, fs, r.summary, r.color)
	case formatJSON:
		return lint.WriteJSON(w, r.findings, r.summary, r.skipped)
	case formatYAML:
		return lint.WriteYAML(w, r.findings, r.summary, r.skipped)
	case formatSARIF:
		return lint.WriteSARIF(w, r.findings, r.skipped, rules.Catalogue(), toolVersion())
	case formatMarkdown:
		return lint.WriteMarkdown(w, r.findings, r.summary)
	case formatGitHub:
		return lint.WriteGitHub(w, r.findings, r.summary)
	case formatJUnit:
		return lint.WriteJUnit(w, r.findings, r.objects, r.failOn)
	}
	return usageErr("--output: unknown format %q", f)
}

// toolVersion is this build's version as `meshguard version` says it, for
// reports that name the tool that wrote them (SARIF), --version and the
// renderer's install hint.
func toolVersion() string {
	bi, ok := debug.ReadBuildInfo()
	return releaseVersion(bi, ok, version)
}
