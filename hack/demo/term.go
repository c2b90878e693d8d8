package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
)

// ANSI escapes, used only when the output is a terminal.
const (
	ansiReset  = "\033[0m"
	ansiBold   = "\033[1m"
	ansiDim    = "\033[2m"
	ansiRed    = "\033[31m"
	ansiGreen  = "\033[32m"
	ansiYellow = "\033[33m"
	ansiCyan   = "\033[36m"
)

// printer writes the demo's terminal output: headings, commands, indented command
// output, check marks and diffs, coloured when color is set.
type printer struct {
	mu    sync.Mutex
	w     io.Writer
	color bool
}

func (p *printer) paint(code, s string) string {
	if !p.color || s == "" {
		return s
	}
	return code + s + ansiReset
}

func (p *printer) bold(s string) string   { return p.paint(ansiBold, s) }
func (p *printer) dim(s string) string    { return p.paint(ansiDim, s) }
func (p *printer) red(s string) string    { return p.paint(ansiRed, s) }
func (p *printer) green(s string) string  { return p.paint(ansiGreen, s) }
func (p *printer) yellow(s string) string { return p.paint(ansiYellow, s) }

// cmd renders a shell command line as the user would type it.
func (p *printer) cmd(s string) string { return p.paint(ansiCyan, "$ "+s) }

// line prints one formatted line.
func (p *printer) line(format string, a ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format+"\n", a...)
}

// heading starts a section.
func (p *printer) heading(s string) {
	bar := strings.Repeat("━", 78)
	p.line("\n%s\n%s\n%s", p.paint(ansiBold+ansiCyan, bar), p.paint(ansiBold, s), p.paint(ansiBold+ansiCyan, bar))
}

// sub starts a part of a section.
func (p *printer) sub(s string) { p.line("\n%s %s", p.paint(ansiBold, "──"), p.bold(s)) }

// note prints a dim explanatory line.
func (p *printer) note(format string, a ...any) { p.line("%s", p.dim(fmt.Sprintf(format, a...))) }

// good and bad print a check mark or a cross before s.
func (p *printer) good(s string) { p.line("  %s %s", p.green("✓"), s) }
func (p *printer) bad(s string)  { p.line("  %s %s", p.red("✗"), p.red(s)) }

// output prints a command's output indented, with kubectl's warnings in yellow and
// server errors in red.
func (p *printer) output(s string) {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return
	}
	for _, l := range strings.Split(s, "\n") {
		switch {
		case strings.HasPrefix(l, "Warning:"):
			l = p.yellow(l)
		case strings.HasPrefix(l, "Error from server"), strings.HasPrefix(l, "error:"):
			l = p.red(l)
		}
		p.line("    %s", l)
	}
}

// diffLine prints one line of lineDiff.
func (p *printer) diffLine(l string) {
	switch {
	case strings.HasPrefix(l, "+ "):
		l = p.green(l)
	case strings.HasPrefix(l, "- "):
		l = p.red(l)
	default:
		l = p.dim(l)
	}
	p.line("    %s", l)
}

// prefixed returns a writer that prints each complete line it receives dim, after
// prefix (progress logs of the stack and the control plane build).
func (p *printer) prefixed(prefix string) io.Writer { return &lineWriter{p: p, prefix: prefix} }

type lineWriter struct {
	p      *printer
	prefix string
	buf    bytes.Buffer
}

func (w *lineWriter) Write(b []byte) (int, error) {
	w.buf.Write(b)
	for {
		i := bytes.IndexByte(w.buf.Bytes(), '\n')
		if i < 0 {
			return len(b), nil
		}
		l := string(w.buf.Next(i + 1))
		w.p.line("%s", w.p.dim(w.prefix+strings.TrimRight(l, "\n")))
	}
}
