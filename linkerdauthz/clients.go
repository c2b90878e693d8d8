package linkerdauthz

import (
	"slices"
	"strings"

	"github.com/meshguard/meshguard/api"
)

// allNetworks is what Linkerd assumes when a grant names no network: everywhere.
func allNetworks() []string { return []string{"0.0.0.0/0", "::/0"} }

// networkWords renders networks as "cidr" or "cidr minus a, b" so a reader sees the
// exceptions next to the range they carve out; none means all networks.
func networkWords(nets []api.Network) []string {
	if len(nets) == 0 {
		return allNetworks()
	}
	out := make([]string, 0, len(nets))
	for _, n := range nets {
		s := n.Cidr
		if len(n.Except) > 0 {
			s += " minus " + strings.Join(n.Except, ", ")
		}
		out = append(out, s)
	}
	return out
}

// modeClients is what a default inbound policy (or a Server's accessPolicy) admits,
// per Linkerd's reference: all-* from anywhere, cluster-* from clusterNetworks,
// *-authenticated only meshed (mTLS) clients, audit everything but flagged.
func modeClients(mode, via string, cluster []string) ([]Client, []string) {
	c := func(kind string, nets []string) []Client {
		return []Client{{Kind: kind, Networks: nets, Via: via}}
	}
	switch mode {
	case "all-unauthenticated":
		return c(ClientUnauthenticated, allNetworks()), nil
	case "cluster-unauthenticated":
		return c(ClientUnauthenticated, cluster), nil
	case "all-authenticated":
		return c(ClientAuthenticated, allNetworks()), nil
	case "cluster-authenticated":
		return c(ClientAuthenticated, cluster), nil
	case "audit":
		return c(ClientUnauthenticated, allNetworks()),
			[]string{"audit: everyone is let in, but connections no policy authorizes are logged and counted"}
	case "deny":
		return c(ClientNone, nil), nil
	}
	return c(ClientNone, nil), []string{"unknown mode " + quote(mode) + ": the proxy injector ignores it"}
}

func quote(s string) string { return `"` + s + `"` }

// sazClients is what a ServerAuthorization's client admits. Linkerd reads it as:
// unauthenticated (anyone), or meshTLS with unauthenticatedTLS (TLS without an
// identity, for the identity controller's own clients) or identities and
// serviceAccounts; all from the listed networks, or, when it lists none, from the
// cluster networks: the policy controller sends the proxy clusterNetworks for an
// authorization without networks (unlike an AuthorizationPolicy without a
// NetworkAuthentication, which it gives every network).
func sazClients(ns, via string, c *api.Client, cluster []string) ([]Client, []string) {
	if c == nil {
		return []Client{{Kind: ClientNone, Via: via}}, []string{via + " has no client: it admits no one"}
	}
	nets := networkWords(c.Networks)
	if len(c.Networks) == 0 {
		nets = slices.Clone(cluster)
	}
	var out []Client
	add := func(kind, name string) {
		out = append(out, Client{Kind: kind, Name: name, Networks: nets, Via: via})
	}
	if c.Unauthenticated {
		add(ClientUnauthenticated, "")
	}
	if m := c.MeshTLS; m != nil {
		if m.UnauthenticatedTLS {
			add(ClientUnauthenticatedTLS, "")
		}
		identities(m.Identities, add)
		for _, sa := range m.ServiceAccounts {
			add(ClientServiceAccount, nsName(sa.Namespace, ns, sa.Name))
		}
	}
	if len(out) == 0 {
		return []Client{{Kind: ClientNone, Via: via}}, []string{via + " names no client kind: it admits no one"}
	}
	return out, nil
}

// identities adds identity grants; a bare "*" is any authenticated client.
func identities(ids []string, add func(kind, name string)) {
	for _, id := range ids {
		if id == "*" {
			add(ClientAuthenticated, "")
			continue
		}
		add(ClientIdentity, id)
	}
}

func nsName(ns, fallback, name string) string {
	if ns == "" {
		ns = fallback
	}
	return ns + "/" + name
}

// authnSet holds the authentication objects of the set by "namespace/name".
type authnSet struct {
	meshTLS map[string]*api.MeshTLSAuthenticationSpec
	network map[string]*api.NetworkAuthenticationSpec
}

// policyClients is what an AuthorizationPolicy admits. Its requiredAuthenticationRefs
// must all hold at once: a MeshTLSAuthentication or a ServiceAccount restricts the
// identity, a NetworkAuthentication the source networks; with neither identity ref the
// client may be unauthenticated. A ref to an object missing from the set makes Linkerd
// skip the policy, so it admits no one here.
func policyClients(ns, name string, spec *api.AuthorizationPolicySpec, set authnSet) ([]Client, []string) {
	via := "AuthorizationPolicy " + ns + "/" + name
	var refs []string
	var mtls *api.MeshTLSAuthenticationSpec
	var sa string
	nets := allNetworks()
	var missing []string
	for _, r := range spec.RequiredAuthenticationRefs {
		key := nsName(r.Namespace, ns, r.Name)
		switch strings.ToLower(r.Kind) {
		case "meshtlsauthentication":
			refs = append(refs, "MeshTLSAuthentication "+key)
			if mtls = set.meshTLS[key]; mtls == nil {
				missing = append(missing, "MeshTLSAuthentication "+key)
			}
		case "networkauthentication":
			refs = append(refs, "NetworkAuthentication "+key)
			if n := set.network[key]; n != nil {
				nets = networkWords(n.Networks)
			} else {
				missing = append(missing, "NetworkAuthentication "+key)
			}
		case "serviceaccount":
			refs = append(refs, "ServiceAccount "+key)
			sa = key
		}
	}
	if len(refs) > 0 {
		via += " (" + strings.Join(refs, ", ") + ")"
	}
	if len(missing) > 0 {
		return []Client{{Kind: ClientNone, Via: via}},
			[]string{via + ": " + strings.Join(missing, ", ") + " not in the linted set, so Linkerd ignores the policy"}
	}
	var out []Client
	add := func(kind, n string) { out = append(out, Client{Kind: kind, Name: n, Networks: nets, Via: via}) }
	switch {
	case mtls != nil:
		identities(mtls.Identities, add)
		for _, r := range mtls.IdentityRefs {
			if strings.EqualFold(r.Kind, api.KindNamespace) {
				add(ClientNamespace, r.Name)
				continue
			}
			add(ClientServiceAccount, nsName(r.Namespace, ns, r.Name))
		}
	case sa != "":
		add(ClientServiceAccount, sa)
	default:
		add(ClientUnauthenticated, "")
	}
	if len(out) == 0 {
		return []Client{{Kind: ClientNone, Via: via}}, nil
	}
	return out, nil
}

// ClientWords says who a client is and from where, for tables and warnings.
func ClientWords(c Client) string {
	who, nets, route := clientParts(c)
	if nets == nil {
		return who
	}
	return who + " from " + strings.Join(nets, "; ") + route
}

// clientParts are ClientWords' parts: who, the networks (nil for no one), and
// " on ROUTE only" or "".
func clientParts(c Client) (who string, nets []string, route string) {
	switch c.Kind {
	case ClientIdentity:
		who = "identity " + c.Name
	case ClientServiceAccount:
		who = "service account " + c.Name
	case ClientNamespace:
		who = "service accounts of namespace " + c.Name
	case ClientAuthenticated:
		who = "any meshed (mTLS) client"
	case ClientUnauthenticatedTLS:
		who = "TLS clients without identity"
	case ClientUnauthenticated:
		who = "anyone, meshed or not"
	default:
		return "no one", nil, ""
	}
	nets = c.Networks
	if len(nets) == 0 || strings.Join(nets, "; ") == "0.0.0.0/0; ::/0" {
		nets = []string{"any network"}
	}
	if c.Route != "" {
		route = " on " + c.Route + " only"
	}
	return who, nets, route
}
