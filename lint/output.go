package lint

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
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
		fmt.Fprintf(bw, "%s %s %s%s %s\n", paint(ansiBold, loc), sev, f.Code, field, oneLine(f.Message))
	}
	line := fmt.Sprintf("%s, %s, %s", plural(sum.Documents, "document"), plural(sum.Errors, "error"), plural(sum.Warnings, "warning"))
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
}

// WriteJSON prints exactly one JSON object {"findings": [...], "summary": {...}},
// the machine contract of `meshguard lint -o json`; findings is [] when empty so
// consumers never see null.
func WriteJSON(w io.Writer, fs []Finding, sum Summary) error {
	if len(fs) == 0 {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(jsonReport{Findings: []Finding{}, Summary: sum})
	}
	// The same bytes as encoding the whole report, one finding at a time: a run
	// with many findings does not hold its whole output (twice, for indenting).
	bw := bufio.NewWriter(w)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("    ", "  ")
	bw.WriteString("{\n  \"findings\": [\n")
	for i, f := range fs {
		buf.Reset()
		if err := enc.Encode(f); err != nil {
			return err
		}
		bw.WriteString("    ")
		bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		if i < len(fs)-1 {
			bw.WriteString(",")
		}
		bw.WriteString("\n")
	}
	bw.WriteString("  ],\n  \"summary\": ")
	buf.Reset()
	enc.SetIndent("  ", "  ")
	if err := enc.Encode(sum); err != nil {
		return err
	}
	bw.Write(buf.Bytes()[:buf.Len()-1])
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
