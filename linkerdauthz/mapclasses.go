package linkerdauthz

import (
	"fmt"
	"strings"

	"github.com/meshguard/meshguard/access"
)

// preClients groups the map's clients that no authorization of ix can tell
// apart, so that each distinct destination is judged once per group, not once
// per ServiceAccount: a meshed client is seen only through its identity, which
// an authorization tests exactly (a MeshTLSAuthentication's identities and
// ServiceAccount refs, a ServerAuthorization's serviceAccounts and identities,
// an AuthorizationPolicy's ServiceAccount refs: namedServiceAccounts) or by its
// namespace (Namespace refs, "*" ServiceAccount refs, "*.<suffix>" identities,
// whose suffix starts after the ServiceAccount's name). So the ServiceAccounts
// of one namespace that none names exactly are decided alike. An
// unauthenticated client is seen through its address and is its own group, as
// is a ServiceAccount whose name has a dot (a "*." suffix could end inside it).
// pre is each client's group, reps the first client of each.
func preClients(ix *index, clients []mapClient, o Options) (pre, reps []int) {
	td := o.TrustDomain
	if td == "" {
		td = DefaultTrustDomain
	}
	named := map[string]bool{}
	for _, sa := range namedServiceAccounts(ix, td) {
		named[sa] = true
	}
	return access.ClassesByKey(len(clients), func(c int) string { return callerSignature(clients[c].caller, named, td) })
}

// callerSignature is what the authorizations can see of c (see preClients).
func callerSignature(c Caller, named map[string]bool, td string) string {
	whole := func() string {
		return fmt.Sprintf("caller %v|%s|%s|%s", c.Unauthenticated, c.IP, c.Identity, c.TrustDomain)
	}
	if c.Unauthenticated || c.IP.IsValid() || c.Identity == "" || (c.TrustDomain != "" && c.TrustDomain != td) {
		return whole()
	}
	ns, name, ok := identityParts(c.Identity, td)
	if !ok || named[ns+"/"+name] || strings.Contains(name, ".") {
		return whole()
	}
	return "namespace " + ns
}

// namedHere are the ServiceAccounts ("ns/name") the authorizations of in name
// exactly (as namedServiceAccounts, for this destination's alone): a client
// none of them names is seen by this destination only through its namespace.
// A ServiceAccount ref's namespace is read both against the authorization's and
// the authentication's namespace: naming too many only splits a group.
func (in *inbound) namedHere(td string) map[string]bool {
	out := map[string]bool{}
	exact := func(ids []string) {
		for _, id := range ids {
			if ns, name, ok := identityParts(id, td); ok && !strings.Contains(id, "*") {
				out[ns+"/"+name] = true
			}
		}
	}
	for _, a := range in.auths {
		if a.saz != nil {
			if c := a.saz.Client; c != nil && c.MeshTLS != nil {
				exact(c.MeshTLS.Identities)
				for _, sa := range c.MeshTLS.ServiceAccounts {
					out[nsOr(sa.Namespace, a.ns)+"/"+sa.Name] = true
				}
			}
			continue
		}
		if a.policy == nil {
			continue
		}
		for _, r := range a.policy.RequiredAuthenticationRefs {
			ns := nsOr(r.Namespace, a.ns)
			switch strings.ToLower(r.Kind) {
			case "serviceaccount":
				out[ns+"/"+r.Name] = true
			case "meshtlsauthentication":
				m := a.authn.meshTLS[ns+"/"+r.Name]
				if m == nil {
					continue
				}
				exact(m.Identities)
				for _, ref := range m.IdentityRefs {
					if strings.EqualFold(ref.Kind, "serviceaccount") {
						out[nsOr(ref.Namespace, ns)+"/"+ref.Name] = true
						out[nsOr(ref.Namespace, a.ns)+"/"+ref.Name] = true
					}
				}
			}
		}
	}
	return out
}

// repSignature is what a row's authorizations can see of a representative
// client, computed once for the map (callerSignature per row and client
// was most of a 2,000-workload map's judging): whether it is seen whole, and
// else its ServiceAccount ("ns/name") and its namespace's number.
type repSignature struct {
	whole bool
	sa    string
	ns    int
}

// repSignatures are the representatives' signatures; namespaces are numbered
// in order of first use.
func repSignatures(clients []mapClient, reps []int, td string) []repSignature {
	out := make([]repSignature, len(reps))
	nss := map[string]int{}
	for k, c := range reps {
		cl := clients[c].caller
		if cl.Unauthenticated || cl.IP.IsValid() || cl.Identity == "" || (cl.TrustDomain != "" && cl.TrustDomain != td) {
			out[k].whole = true
			continue
		}
		ns, name, ok := identityParts(cl.Identity, td)
		if !ok || strings.Contains(name, ".") {
			out[k].whole = true
			continue
		}
		n, seen := nss[ns]
		if !seen {
			n = len(nss)
			nss[ns] = n
		}
		out[k] = repSignature{sa: ns + "/" + name, ns: n}
	}
	return out
}

// local is callerSignature for a row whose authorizations name the
// ServiceAccounts named, as a number: -1-k for representative k seen whole,
// its namespace's number otherwise.
func (s repSignature) local(k int, named map[string]bool) int {
	if s.whole || named[s.sa] {
		return -1 - k
	}
	return s.ns
}
