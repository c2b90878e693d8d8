package kumaauthz

import (
	"fmt"

	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/api"
)

// Checker answers `meshguard check` for Kuma over one input, so that the check
// command and the access map (BuildMap) give one answer for a pair: the same
// selection, identity, notes and decision.
type Checker struct {
	// Policies are the admitted MeshTrafficPermissions that may select the
	// destination (check: those Relevant to it; the map: all of them).
	Policies []Policy
	// Identities are the input's MeshIdentities.
	Identities []Identity
	// SystemNamespace is where mesh-wide policies live (empty: kuma-system).
	SystemNamespace string
	// Form is the RBAC form `from` policies compile to (empty: expanded).
	Form Form
	// ServiceTargets reports whether some MeshTrafficPermission of the mesh
	// targets a MeshService (then a destination without kuma.io/service gets a
	// note); nil: none does.
	ServiceTargets func(mesh string) bool
	// idx, when set (Indexed), finds the policies worth asking about a proxy
	// without deriving every policy's target again.
	idx *policyIndex
}

// policyIndex is every policy's target, derived once, and the policies by the
// scope they can select in: (mesh, "") for a mesh-wide target, (mesh, ns) for
// one confined to a namespace, plus the route-level ones of each mesh, about
// which SelectPolicies always says something.
type policyIndex struct {
	pts     []Target
	byScope map[[2]string][]int
	routes  map[string][]int
}

// Indexed is c with its policies' targets derived once: Select then looks at
// the policies of the proxy's mesh and namespace only, and answers exactly as
// without the index (the access map selects for thousands of proxies).
func (c Checker) Indexed() Checker {
	sys := orStr(c.SystemNamespace, api.DefaultSystemNS)
	ix := &policyIndex{byScope: map[[2]string][]int{}, routes: map[string][]int{}}
	for i, p := range c.Policies {
		pt := TargetOf(p, sys)
		ix.pts = append(ix.pts, pt)
		if pt.Route() {
			ix.routes[p.Mesh] = append(ix.routes[p.Mesh], i)
			continue
		}
		k := [2]string{p.Mesh, pt.Namespace}
		ix.byScope[k] = append(ix.byScope[k], i)
	}
	c.idx = ix
	return c
}

// selectIndexed is SelectPolicies over the index: the same policies, notes
// and order, from the candidates of the proxy's scope (in input order).
func (c Checker) selectIndexed(px Proxy) Selection {
	sys := orStr(c.SystemNamespace, api.DefaultSystemNS)
	ix := c.idx
	cand := mergeSorted(ix.byScope[[2]string{px.Mesh, ""}], ix.routes[px.Mesh])
	if px.Namespace != "" {
		cand = mergeSorted(cand, ix.byScope[[2]string{px.Mesh, px.Namespace}])
	}
	g := px.Target()
	var sel Selection
	for _, i := range cand {
		selected, why := relevanceOf(c.Policies[i], ix.pts[i], px, g)
		if selected {
			sel.Policies = append(sel.Policies, c.Policies[i])
		} else if why != "" {
			sel.Notes = append(sel.Notes, why)
		}
	}
	SortPolicies(sel.Policies, sys)
	return sel
}

// Selected is what configures one destination proxy: the policies selected for
// it in merge order (with the notes of those left out) and its MeshIdentity.
type Selected struct {
	Selection
	Identity *Identity
}

// Select finds what configures px, as check does.
func (c Checker) Select(px Proxy) Selected {
	var sel Selected
	if c.idx != nil {
		sel.Selection = c.selectIndexed(px)
	} else {
		sel.Selection = SelectPolicies(c.Policies, px, c.SystemNamespace)
	}
	sel.Identity = IdentityOf(c.Identities, px.Mesh, px.IdentityLabels())
	if id := sel.Identity; id != nil && !id.Ready() {
		sel.Notes = append(sel.Notes, fmt.Sprintf("%s %s selects the proxy but gives no identity yet: %s; until it is Ready, `from` policies apply",
			api.KindMeshIdentity, id.Ref(), id.NotReady))
	}
	return sel
}

// Answer is check's answer for client cl calling px, which sel configures
// (Select(px)); workload is how the destination was named ("" for labels).
func (c Checker) Answer(px Proxy, sel Selected, workload string, cl Client, req access.Request, loc access.Locate) (access.Answer, error) {
	rbacReq := Request{SANs: cl.SANs, SNI: req.SNI, Method: req.Method, Path: req.Path}
	d, err := DecideFor(sel.Policies, px.Mesh, sel.Identity, rbacReq, Options{Form: c.Form, SystemNamespace: c.SystemNamespace})
	if err != nil {
		return access.Answer{}, err
	}
	d.Notes = append(append([]string(nil), sel.Notes...), d.Notes...)
	if _, ok := px.Tags[api.ServiceTag]; !ok && c.ServiceTargets != nil && c.ServiceTargets(px.Mesh) {
		d.Notes = append(d.Notes, "the destination has no "+api.ServiceTag+" tag, so policies that target a MeshService cannot select it; give it in --to, or name the workload (its Service gives the tag)")
	}
	return d.Answer(cl, px, workload, sel.Policies, req, loc), nil
}
