// Package redact replaces the names of objects a reader is not shown in text meant
// for them (admission warnings and audit annotations): the webhook answers a user
// who may only read their own namespace, and must not tell them the names of
// policies stored elsewhere.
package redact

import "strings"

// Namespace is the namespace of a "namespace/name" ref ("" for a bare name).
func Namespace(ref string) string {
	ns, _, ok := strings.Cut(ref, "/")
	if !ok {
		return ""
	}
	return ns
}

// Hidden returns, in first-seen order, the refs ("namespace/name") among refs
// whose namespace visible does not accept, each once.
func Hidden(refs []string, visible func(namespace string) bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, ref := range refs {
		if !seen[ref] && !visible(Namespace(ref)) {
			seen[ref] = true
			out = append(out, ref)
		}
	}
	return out
}

// Replace returns s with each ref of order that stands in it as a whole name
// (neither side touches a name character or '/') replaced by alias(ref). Refs
// that are part of a longer name are left alone.
func Replace(s string, order []string, alias func(ref string) string) string {
	for _, ref := range order {
		if !strings.Contains(s, ref) {
			continue
		}
		var b strings.Builder
		from := 0 // s[:from] is written
		for at := 0; ; {
			i := strings.Index(s[at:], ref)
			if i < 0 {
				break
			}
			i += at
			end := i + len(ref)
			if (i == 0 || !nameChar(s[i-1])) && endsName(s, end) {
				b.WriteString(s[from:i])
				b.WriteString(alias(ref))
				from = end
			}
			at = end
		}
		b.WriteString(s[from:])
		s = b.String()
	}
	return s
}

// endsName reports whether a name ending before s[end] ends there: the next byte
// is no name character, or a '.' that ends a sentence (names do not end in '.').
func endsName(s string, end int) bool {
	switch {
	case end == len(s) || !nameChar(s[end]):
		return true
	case s[end] == '.':
		return end+1 == len(s) || !nameChar(s[end+1])
	}
	return false
}

// nameChar reports the bytes a namespace or an object name may contain, and '/'.
func nameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '/'
}
