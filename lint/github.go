package lint

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// WriteGitHub prints the findings as GitHub Actions workflow commands
// (`::error file=F,line=L,title=MG123::message`), which GitHub turns into
// annotations on the pull request's files without code scanning, so they work on
// private repositories without GitHub Advanced Security. Suppressed findings are
// left out; the summary line follows as plain log text.
func WriteGitHub(w io.Writer, fs []Finding, sum Summary) error {
	bw := bufio.NewWriter(w)
	for _, f := range fs {
		if f.Suppression != nil {
			continue
		}
		cmd := "notice"
		switch f.Severity {
		case "error", "warning":
			cmd = f.Severity
		}
		props := []string{"file=" + githubProperty(f.File)}
		if f.Line > 0 {
			props = append(props, "line="+strconv.Itoa(f.Line))
		}
		props = append(props, "title="+githubProperty(f.Code))
		msg := f.Message + renderedNote(f)
		if f.Field != "" {
			msg = f.Field + ": " + msg
		}
		fmt.Fprintf(bw, "::%s %s::%s\n", cmd, strings.Join(props, ","), githubData(msg))
	}
	fmt.Fprintln(bw, summaryLine(sum))
	return bw.Flush()
}

// githubData escapes a workflow command's message as the runner decodes it:
// % first, then the line breaks that would end the command.
func githubData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// githubProperty escapes a workflow command property value: githubData plus
// the ':' and ',' that separate properties.
func githubProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// summaryLine is the counts the text output ends with, without colour.
func summaryLine(sum Summary) string {
	line := fmt.Sprintf("%s, %s, %s", plural(sum.Documents, "document"), plural(sum.Errors, "error"), plural(sum.Warnings, "warning"))
	if sum.Skipped > 0 {
		line += fmt.Sprintf(", %d skipped", sum.Skipped)
	}
	if sum.Suppressed > 0 {
		line += fmt.Sprintf(", %d suppressed", sum.Suppressed)
	}
	return line
}

// MaxMarkdownRows bounds the findings table of WriteMarkdown: a GitHub job
// summary holds at most 1 MiB, and a table of thousands of rows helps no one.
const MaxMarkdownRows = 500

// WriteMarkdown prints the findings as a Markdown report (a summary line and a
// table), for a GitHub job summary or a pull-request comment. Suppressed
// findings are counted, not listed; past MaxMarkdownRows the rest are counted.
func WriteMarkdown(w io.Writer, fs []Finding, sum Summary) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "## meshguard lint\n\n%s\n", summaryLine(sum))
	fs = Unsuppressed(fs)
	if len(fs) > 0 {
		bw.WriteString("\n| file | severity | code | field | message |\n| --- | --- | --- | --- | --- |\n")
	}
	for i, f := range fs {
		if i == MaxMarkdownRows {
			fmt.Fprintf(bw, "\n… and %d more (see the log or the SARIF report)\n", len(fs)-i)
			break
		}
		loc := f.File
		if f.Line > 0 {
			loc += ":" + strconv.Itoa(f.Line)
		}
		fmt.Fprintf(bw, "| %s | %s | %s | %s | %s |\n", markdownCell(loc), f.Severity, f.Code, markdownCell(f.Field), markdownCell(f.Message+renderedNote(f)))
	}
	return bw.Flush()
}

// markdownCell keeps a value inside one table cell: one line, pipes escaped,
// and HTML-significant characters shown as text.
func markdownCell(s string) string {
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "`", "'").Replace(oneLine(s))
}

// WriteYAML prints the report of WriteJSON as YAML: the same keys and values,
// for readers who prefer it.
func WriteYAML(w io.Writer, fs []Finding, sum Summary, skipped []Skip) error {
	if fs == nil {
		fs = []Finding{}
	}
	if skipped == nil {
		skipped = []Skip{}
	}
	out, err := yaml.Marshal(jsonReport{Findings: fs, Summary: sum, Skipped: skipped})
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}
