package lint

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiGreen  = "\x1b[32m"
)

// WriteText prints one line per finding, `file:line: severity code field: message`,
// the format compilers use so editors and terminals can jump to the line, then a
// summary line. ANSI colour is used only when color is true; the caller decides
// (see IsTerminal).
func WriteText(w io.Writer, fs []Finding, sum Summary, color bool) error {
	bw := bufio.NewWriter(w)
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return code + s + ansiReset
	}
	for _, f := range fs {
		loc := f.File + ":"
		if f.Line > 0 {
			loc += strconv.Itoa(f.Line) + ":"
		}
		sev := f.Severity
		switch sev {
		case "error":
			sev = paint(ansiRed+ansiBold, sev)
		case "warning":
			sev = paint(ansiYellow, sev)
		}
		field := ""
		if f.Field != "" {
			field = " " + f.Field + ":"
		}
		fmt.Fprintf(bw, "%s %s %s%s %s%s%s\n", paint(ansiBold, loc), sev, f.Code, field, oneLine(f.Message), renderedNote(f), suppressedNote(f))
	}
	line := summaryLine(sum)
	switch {
	case sum.Errors > 0:
		line = paint(ansiRed, line)
	case sum.Warnings > 0:
		line = paint(ansiYellow, line)
	default:
		line = paint(ansiGreen, line)
	}
	fmt.Fprintln(bw, line)
	return bw.Flush()
}

// renderedNote names the kustomize build or Helm render a finding's object came
// out of, and where in its output the field is, since File and Line point at
// the source.
func renderedNote(f Finding) string {
	if f.RenderedBy == "" {
		return ""
	}
	output := "its output"
	if filepath.Base(f.RenderedBy) == chartFile {
		output = "the rendered template"
	}
	return fmt.Sprintf(" [rendered by %s, line %d of %s]", f.RenderedBy, f.RenderedLine, output)
}

// suppressedNote marks a suppressed finding in text output, which shows them
// only on request (see Unsuppressed).
func suppressedNote(f Finding) string {
	if f.Suppression == nil {
		return ""
	}
	return fmt.Sprintf(" [suppressed by %s: %s]", f.Suppression.Source, oneLine(f.Suppression.Justification))
}

// Unsuppressed returns the findings no suppression accepted, for text output,
// which counts suppressed findings in its summary line instead of listing them.
func Unsuppressed(fs []Finding) []Finding {
	out := make([]Finding, 0, len(fs))
	for _, f := range fs {
		if f.Suppression == nil {
			out = append(out, f)
		}
	}
	return out
}

// WriteNotes prints one line per skipped document, `file:line: note: skipped:
// reason`, for standard error: every output format does this, so standard
// output stays the report and skipping is never silent.
func WriteNotes(w io.Writer, skipped []Skip) error {
	bw := bufio.NewWriter(w)
	for _, s := range skipped {
		loc := s.File + ":"
		if s.Line > 0 {
			loc += strconv.Itoa(s.Line) + ":"
		}
		fmt.Fprintf(bw, "%s note: skipped: %s\n", loc, s.Reason)
	}
	return bw.Flush()
}

// oneLine keeps a multi-line message from breaking the one-finding-per-line format.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// jsonReport is the single object `-o json` prints.
type jsonReport struct {
	Findings []Finding `json:"findings"`
	Summary  Summary   `json:"summary"`
	Skipped  []Skip    `json:"skipped"`
}

// WriteJSON prints exactly one JSON object {"findings": [...], "summary": {...},
// "skipped": [...]}, the machine contract of `meshguard lint -o json`; the lists
// are [] when empty so consumers never see null.
func WriteJSON(w io.Writer, fs []Finding, sum Summary, skipped []Skip) error {
	if skipped == nil {
		skipped = []Skip{}
	}
	if len(fs) == 0 {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(jsonReport{Findings: []Finding{}, Summary: sum, Skipped: skipped})
	}
	// The same bytes as encoding the whole report, one finding at a time: a run
	// with many findings does not hold its whole output (twice, for indenting).
	// The findings are written by appendFindingJSON, the rest by the encoder.
	bw := bufio.NewWriter(w)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	bw.WriteString("{\n  \"findings\": [\n")
	var line []byte
	for i := range fs {
		line = append(line[:0], "    "...)
		line = appendFindingJSON(line, &fs[i])
		if i < len(fs)-1 {
			line = append(line, ',')
		}
		line = append(line, '\n')
		bw.Write(line)
	}
	enc.SetIndent("  ", "  ")
	for _, member := range []struct {
		lead  string
		value any
	}{{"  ],\n  \"summary\": ", sum}, {",\n  \"skipped\": ", skipped}} {
		bw.WriteString(member.lead)
		buf.Reset()
		if err := enc.Encode(member.value); err != nil {
			return err
		}
		bw.Write(buf.Bytes()[:buf.Len()-1])
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// IsTerminal reports whether colour should go to f: it is a character device (a
// terminal) and the user has not opted out with NO_COLOR (https://no-color.org)
// or TERM=dumb. It uses only os.File.Stat, so no terminal library is needed.
func IsTerminal(f *os.File) bool {
	if f == nil || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	info, err := f.Stat()
	if err != nil {
		return false
	}
	return info.Mode()&os.ModeCharDevice != 0
}
