package access

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// WriteText writes the answer as `meshguard check` prints it: the verdict line,
// the deciding item and what led to it, one line each.
func (r Answer) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s -> %s\n", r.Decision, r.clientWords(), r.destWords())
	fmt.Fprintf(&b, "  decided by: %s\n", r.DecidedBy.Words())
	if a := r.DecidedBy.Authentication; a != nil {
		fmt.Fprintf(&b, "    authentication: %s\n", a.Words())
	}
	if r.ShadowDecision != "" {
		by := "decided by " + r.ShadowDecidedBy.Words()
		if *r.ShadowDecidedBy == r.DecidedBy {
			by = "by the same item"
		}
		fmt.Fprintf(&b, "  shadow: %s, %s\n", r.ShadowDecision, by)
	}
	if r.Filter != "" && r.Filter != "none" {
		fmt.Fprintf(&b, "  filter: Envoy %s RBAC (%s form)\n", r.Filter, r.Form)
	}
	if r.Server != "" {
		fmt.Fprintf(&b, "  server: %s\n", r.Server)
	}
	if r.Route != "" {
		fmt.Fprintf(&b, "  route: %s\n", r.Route)
	}
	if r.MeshIdentity != nil {
		fmt.Fprintf(&b, "  identity: %s (only `rules` policies are programmed)\n", r.MeshIdentity.Words())
	}
	if r.Mesh == "kuma" {
		fmt.Fprintf(&b, "  merged policies (least specific first): %d\n", len(r.Merged))
		for i, p := range r.Merged {
			fmt.Fprintf(&b, "    %d. %s%s\n", i+1, p.Policy, p.place())
		}
	}
	if len(r.Considered) > 0 {
		b.WriteString("  authorizations considered:\n")
		for i, c := range r.Considered {
			fmt.Fprintf(&b, "    %d. %s\n", i+1, c)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (it Item) place() string {
	switch {
	case it.File == "":
		return ""
	case it.Line == 0:
		return "  (" + it.File + ")"
	}
	return fmt.Sprintf("  (%s:%d)", it.File, it.Line)
}

// Words is the item in one phrase: kind, policy, path, what it matches, where.
func (it Item) Words() string {
	if it.Policy == DefaultPolicy && it.Kind == "" {
		return "default: " + it.Match
	}
	s := it.Policy
	if it.Kind != "" {
		s = it.Kind + " " + s
	}
	if it.Path != "" {
		s += " " + it.Path
	}
	switch {
	case it.Action != "" && it.Match != "":
		s += " (" + it.Action + " " + it.Match + ")"
	case it.Match != "":
		s += ": " + it.Match
	}
	return s + it.place()
}

func (r Answer) clientWords() string {
	c := r.Client
	switch {
	case c.SpiffeID != "":
		return c.SpiffeID
	case len(c.Tags) > 0:
		return TagWords(c.Tags) + " of mesh " + c.Mesh
	case c.Identity != "":
		s := c.Identity
		if c.IP != "" {
			s += " from " + c.IP
		}
		return s
	case c.Unauthenticated && c.IP != "":
		return "unauthenticated client from " + c.IP
	}
	return "unauthenticated client"
}

func (r Answer) destWords() string {
	d := r.Destination
	var s string
	switch {
	case d.Workload != "":
		s = d.Workload
	case d.Name != "":
		s = "Dataplane " + d.Name
	case r.Mesh == "kuma":
		s = "proxy with tags " + TagWords(d.Tags)
	default:
		s = "pods with labels " + TagWords(d.Tags)
	}
	if d.Section != "" {
		s += " inbound " + d.Section
	}
	if d.Port != "" {
		s += " port " + d.Port
	}
	if d.Namespace != "" {
		s += " in namespace " + d.Namespace
	}
	if d.Mesh != "" {
		s += " of mesh " + d.Mesh
	}
	return s
}

// TagWords writes tags as k=v,k=v, sorted by key.
func TagWords(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=" + m[k]
	}
	return strings.Join(keys, ",")
}
