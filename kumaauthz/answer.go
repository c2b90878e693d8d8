package kumaauthz

import (
	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/api"
)

// Answer is d in the shape every mesh's answer takes (access.Answer): the client
// and proxy asked about (workload is the name the proxy was asked by, "" when by
// tags), the request, the deciding items and the policies merged for the proxy,
// each placed by loc.
func (d Decision) Answer(cl Client, px Proxy, workload string, merged []Policy, req access.Request, loc access.Locate) access.Answer {
	r := access.Answer{Mesh: "kuma", Decision: access.Verdict(d.Enforced.Allow), Default: d.Default, Form: string(d.Form), Filter: d.Enforced.Filter,
		Request: req, Notes: d.Notes}
	r.Client = access.Peer{SpiffeID: cl.SpiffeID, Mesh: cl.Mesh, Tags: cl.Tags, URISANs: cl.SANs}
	r.Destination = access.Peer{Mesh: px.Mesh, Namespace: px.Namespace, Name: px.Name, Section: px.Section, Tags: px.Tags, Workload: workload}
	r.DecidedBy = deciderItem(d.Enforced.Decider, loc)
	if d.Shadow != nil {
		r.ShadowDecision = access.Verdict(d.Shadow.Allow)
		it := deciderItem(d.Shadow.Decider, loc)
		r.ShadowDecidedBy = &it
	}
	if d.Identity != "" {
		ns, name := access.SplitRef(d.Identity)
		it := access.Item{Kind: api.KindMeshIdentity, Policy: d.Identity}
		it.File, it.Line = loc(api.KindMeshIdentity, ns, name, "")
		r.MeshIdentity = &it
	}
	r.Merged = []access.Item{}
	for _, p := range merged {
		it := access.Item{Kind: api.KindMeshTrafficPermission, Policy: p.Ref()}
		it.File, it.Line = loc(api.KindMeshTrafficPermission, p.Namespace, p.Name, "")
		r.Merged = append(r.Merged, it)
	}
	return r
}

// deciderItem is a decider with the place of its item.
func deciderItem(dec Decider, loc access.Locate) access.Item {
	it := access.Item{Policy: dec.Policy, Path: dec.Path, Action: dec.Action, Match: dec.Match}
	if dec.Policy != DefaultActionName {
		it.Kind = api.KindMeshTrafficPermission
		ns, name := access.SplitRef(dec.Policy)
		it.File, it.Line = loc(api.KindMeshTrafficPermission, ns, name, dec.Path)
	}
	return it
}
