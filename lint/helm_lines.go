package lint

import "strings"

// templateLines maps the lines of a rendered Helm template back to the template
// source, which template directives make longer or shorter: rendered line i
// (1-based) maps to out[i], the nearest source line with the same indentation
// and key ("  name:", "    - kind:"), or the same text for lines without a
// key; 0 when no source line looks like it (a line toYaml or nindent made).
// It is a heuristic: with repeated keys the nearest one is taken.
func templateLines(rendered, source []byte) []int {
	bySig := map[string][]int{}
	for i, l := range splitLines(source) {
		if sig := lineSignature(l); sig != "" {
			bySig[sig] = append(bySig[sig], i+1)
		}
	}
	lines := splitLines(rendered)
	out := make([]int, len(lines)+1)
	for i, l := range lines {
		out[i+1] = nearest(bySig[lineSignature(l)], i+1)
	}
	return out
}

func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		n, br := nextLine(b)
		out = append(out, string(b[:n]))
		b = b[n+br:]
	}
	return out
}

// lineSignature is what a rendered line and its template line share: the
// indentation, a list dash and the key up to its colon, or, for a line with no
// key, the whole line. Blank lines, comments and directive-only lines have none.
func lineSignature(l string) string {
	l = strings.TrimRight(l, " \t\r")
	body := strings.TrimLeft(l, " ")
	if body == "" || strings.HasPrefix(body, "#") || strings.HasPrefix(body, "{{") {
		return ""
	}
	indent := l[:len(l)-len(body)]
	dash := ""
	if strings.HasPrefix(body, "- ") {
		dash, body = "- ", strings.TrimLeft(body[2:], " ")
	}
	if i := strings.Index(body, ":"); i > 0 && (i+1 == len(body) || body[i+1] == ' ') && !strings.Contains(body[:i], "{{") {
		return indent + dash + body[:i+1]
	}
	return indent + dash + body
}

// nearest is the candidate closest to line, the earlier one on a tie; 0 if none.
func nearest(candidates []int, line int) int {
	best := 0
	for _, c := range candidates {
		if best == 0 || abs(c-line) < abs(best-line) {
			best = c
		}
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// sourceLine maps a line of d's rendered template to its template source line
// when a mapping is known.
func (d *Document) sourceLine(line int) int {
	if d.Rendered == nil {
		return line
	}
	if m := d.Rendered.templateLines; line > 0 && line < len(m) && m[line] > 0 {
		return m[line]
	}
	return line
}
