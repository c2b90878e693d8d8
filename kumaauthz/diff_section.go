package kumaauthz

import (
	"fmt"

	"github.com/meshguard/meshguard/access"
)

// Section is g in Kuma's words, for the one diff renderer (access.DiffSection).
func (g GroupDiff) Section() access.DiffSection {
	s := access.DiffSection{Mesh: "Kuma", Title: g.Scope, About: g.Model, Note: g.Identity, Classes: g.Classes, Incomplete: g.Incomplete,
		Sentence: fmt.Sprintf("%d client classes compared (%s).", g.Classes, g.Model)}
	for _, c := range g.Changes {
		s.Changes = append(s.Changes, access.DiffChange{Kind: c.Kind, Clients: c.Clients, Old: c.Old.Words(), New: c.New.Words()})
	}
	return s
}

// Words is a class's decision: "ALLOW by …", "DENY (shadow: ALLOW) by …".
func (d ClassDecision) Words() string {
	s := access.Verdict(d.Allow)
	if d.ShadowAllow != d.Allow {
		s += " (shadow: " + access.Verdict(d.ShadowAllow) + ")"
	}
	s += " by " + d.By.String()
	if d.ShadowBy != nil {
		s += "; shadow by " + d.ShadowBy.String()
	}
	return s
}
