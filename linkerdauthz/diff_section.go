package linkerdauthz

import (
	"fmt"

	"github.com/meshguard/meshguard/access"
)

// Section is d in Linkerd's words, for the one diff renderer (access.DiffSection).
func (d ServerDiff) Section() access.DiffSection {
	s := access.DiffSection{Mesh: "Linkerd", Title: d.Title(), About: "port " + d.Port + "; " + d.Pods, Classes: d.Classes, Incomplete: d.Incomplete,
		Sentence: fmt.Sprintf("Port %s, %s; %d client classes compared.", d.Port, d.Pods, d.Classes)}
	for _, c := range d.Changes {
		s.Changes = append(s.Changes, access.DiffChange{Kind: c.Kind, Clients: c.Clients, Old: c.Old.Words(), New: c.New.Words()})
	}
	return s
}

// Title names the unit compared: a Server, or a namespace's default policy.
func (d ServerDiff) Title() string {
	if d.Default {
		return "default policy of " + d.Ref()
	}
	return "Server " + d.Ref()
}

// Words is a class's decision: "allowed by …" or "denied: …".
func (d ClassDecision) Words() string {
	if d.Allow {
		return "allowed by " + d.By
	}
	return "denied: " + d.By
}
