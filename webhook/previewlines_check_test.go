package webhook

import (
	"fmt"
	"strings"
	"testing"
)

// nameSet holds every name the objects of one test shape carry (policy refs,
// namespaces, names, tag and label key=value pairs, SPIFFE IDs, identities,
// CIDRs), so that a warning line can be checked to show each name whole or as an
// elision of one of them.
type nameSet map[string]bool

func (n nameSet) add(names ...string) {
	for _, s := range names {
		n[s] = true
	}
}

// plainWord reports whether w is a word of the warning text itself that looks
// like a name.
func plainWord(w string) bool { return w == "method/path" }

// lineProblem says what is wrong with one preview warning line: too long, more
// than one line, or a token that looks like a name (has '=', '/' or ':' in it, or
// is long) and is neither one of names nor an elision of one ("start…end", both
// ends at least 3 bytes). "" means the line is fine. The line's own separators are
// spaces and commas: no name holds either.
func lineProblem(line string, names nameSet) string {
	if len(line) > MaxWarningLen {
		return fmt.Sprintf("%d bytes, over %d", len(line), MaxWarningLen)
	}
	if strings.ContainsAny(line, "\r\n") {
		return "more than one line"
	}
	for _, tok := range strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == ',' }) {
		t := strings.TrimLeft(tok, "(\"'`")
		t = strings.TrimRight(t, ")\"'`:;")
		if strings.Contains(t, "…") {
			if !isElision(t, names) {
				return fmt.Sprintf("%q is cut, not an elision of one whole name", t)
			}
			continue
		}
		looks := strings.ContainsAny(t, "=/:") || len(t) > 40
		if looks && !names[t] && !names[strings.TrimSuffix(t, "*")] && !plainWord(t) {
			return fmt.Sprintf("%q is not a whole name", t)
		}
	}
	return ""
}

// isElision reports whether t keeps the start and the end of one known name
// around a single "…".
func isElision(t string, names nameSet) bool {
	start, end, ok := strings.Cut(t, "…")
	if !ok || strings.Contains(end, "…") || len(start) < 3 || len(end) < 3 {
		return false
	}
	for n := range names {
		if len(n) > len(start)+len(end) && strings.HasPrefix(n, start) && strings.HasSuffix(strings.TrimSuffix(n, "*"), strings.TrimSuffix(end, "*")) {
			return true
		}
	}
	return false
}

// TestLineProblemCatchesCuts keeps the checker honest: the lines the webhook
// gave before (cut at 120 bytes inside a name) and other cuts are caught, whole
// and elided names pass.
func TestLineProblemCatchesCuts(t *testing.T) {
	names := nameSet{}
	names.add("kuma.io/service=ops-console_ops-ns_svc_8080", "backend-ns/backend-allow-ops", "spiffe://trust-domain.mesh/ns/legacy",
		"app=backend", "kuma-system/mesh-deny-default")
	for _, c := range []struct {
		line string
		ok   bool
	}{
		{"backend-ns/backend-allow-ops allows 1 more client: kuma.io/service=ops-console_ops-ns_svc_8080", true},
		{"allowed (enforced): kuma.io/service=ops-c…svc_8080, +2 more (see rbac-preview)", true},
		{"allowed: spiffe://trust-domain.mesh/ns/legacy*; everyone else denied", true},
		{"allowed: kuma.io/service=prometheus_observability_svc_9090, kuma.io/se…", false},
		{"allowed: kuma.io/service=ops-console_ops-ns_svc_8080, kuma.io/se", false},
		{"RBAC Dataplanes with labels app=backend in namespace backend-ns of mesh default: kuma-system/mesh-deny-default, backe…", false},
		{"policy backend-ns/backend-allow-o… (see rbac-preview)", false},
		{"policy …backend-allow-ops", false},
		{strings.Repeat("x", MaxWarningLen+1), false},
		{"two\nlines", false},
	} {
		if got := lineProblem(c.line, names); (got == "") != c.ok {
			t.Errorf("lineProblem(%q) = %q, want ok=%v", c.line, got, c.ok)
		}
	}
}
