package linkerdauthz

import (
	"fmt"

	"github.com/meshguard/meshguard/access"
)

// Answer is d in the shape every mesh's answer takes (access.Answer): the caller
// and destination asked about (port as it was asked, "" to take dst's number),
// the request and the deciding item, placed by loc.
func (d Decision) Answer(c Caller, dst Destination, port string, req access.Request, loc access.Locate) access.Answer {
	r := access.Answer{Mesh: "linkerd", Decision: access.Verdict(d.Allow), Default: d.Default, Server: d.Server, Route: d.Route,
		Request: req, Considered: d.Considered, Notes: d.Notes}
	if d.Audit {
		r.Notes = append(r.Notes, "audit mode: the call goes through, and Linkerd logs it as unauthorized")
	}
	r.Client = access.Peer{Identity: c.Identity, Unauthenticated: c.Unauthenticated}
	if c.IP.IsValid() {
		r.Client.IP = c.IP.String()
	}
	if port == "" && dst.Port != 0 {
		port = fmt.Sprint(dst.Port)
	}
	r.Destination = access.Peer{Namespace: dst.Namespace, Workload: dst.Workload, Port: port, Tags: dst.Labels}
	r.DecidedBy = deciderItem(d.Decider, loc)
	return r
}

// deciderItem is a decider with the place of its field.
func deciderItem(dec Decider, loc access.Locate) access.Item {
	it := access.Item{Kind: dec.Kind, Policy: dec.Name, Path: dec.Path, Match: dec.Words}
	if dec.Namespace != "" {
		it.Policy = dec.Namespace + "/" + dec.Name
	}
	if dec.Kind == "" {
		it.Policy = access.DefaultPolicy
	}
	it.File, it.Line = loc(dec.Kind, dec.Namespace, dec.Name, dec.Path)
	if a := dec.Authentication; a != nil {
		sub := deciderItem(*a, loc)
		sub.Match = a.Words
		it.Authentication = &sub
	}
	return it
}
