package kumaauthz

import (
	"strconv"

	"github.com/meshguard/meshguard/internal/redact"
)

// Redact returns previews with the policies of namespaces visible does not accept
// left unnamed: the webhook's warnings and audit annotation go to a user who may
// only be allowed to read their own namespace, so a policy elsewhere that shares
// their proxies is counted, not named. Each preview's Policies keeps the visible
// refs in merge order and Hidden counts the others; their items, findings and
// notes call them "(other namespace #k)", k numbering them in merge order across
// the previews. What the group compiles to (Items' clients and actions, RBAC,
// Form, Target) is unchanged: the merged result is the same, only names differ.
// The previews passed in are not modified.
func Redact(previews []Preview, visible func(namespace string) bool) []Preview {
	var refs []string
	for _, p := range previews {
		refs = append(refs, p.Policies...)
	}
	order := redact.Hidden(refs, visible)
	if len(order) == 0 {
		return previews
	}
	alias := make(map[string]string, len(order))
	for i, ref := range order {
		alias[ref] = "(other namespace #" + strconv.Itoa(i+1) + ")"
	}
	out := make([]Preview, len(previews))
	for i, p := range previews {
		out[i] = redactOne(p, alias, order)
	}
	return out
}

// RedactText replaces the refs ("namespace/name") of namespaces visible does not
// accept among refs, where they stand as whole names in s, with "(other namespace)":
// for texts such as errors that name stored policies.
func RedactText(s string, refs []string, visible func(namespace string) bool) string {
	return redact.Replace(s, redact.Hidden(refs, visible), func(string) string { return "(other namespace)" })
}

// redactOne is Redact for one preview.
func redactOne(p Preview, alias map[string]string, order []string) Preview {
	name := func(ref string) string { return alias[ref] }
	q := p
	q.Policies, q.Hidden = nil, p.Hidden
	for _, ref := range p.Policies {
		if _, hidden := alias[ref]; hidden {
			q.Hidden++
		} else {
			q.Policies = append(q.Policies, ref)
		}
	}
	q.Items = make([]PreviewItem, len(p.Items))
	for i, it := range p.Items {
		if a, hidden := alias[it.Policy]; hidden {
			it.Policy = a
		}
		q.Items[i] = it
	}
	if p.Findings != nil {
		q.Findings = p.Findings[:0:0]
		for _, f := range p.Findings {
			c := *f
			if s, ok := c.BadValue.(string); ok {
				c.BadValue = redact.Replace(s, order, name)
			}
			c.Detail = redact.Replace(c.Detail, order, name)
			q.Findings = append(q.Findings, &c)
		}
	}
	if p.Warnings != nil {
		q.Warnings = make([]string, len(p.Warnings))
		for i, w := range p.Warnings {
			q.Warnings[i] = redact.Replace(w, order, name)
		}
	}
	return q
}
