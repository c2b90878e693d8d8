package linkerdauthz

import (
	"fmt"
	"net/netip"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
)

// This file holds how Decide reads grants: default modes, networks, identities,
// HTTP routes, and the admission checks of ServerAuthorizations and
// AuthorizationPolicies with their authentications.

// evaluator checks a caller against grants.
type evaluator struct {
	c       Caller
	td      string
	cluster []string
}

// mode is what a default inbound policy (or accessPolicy) decides for the caller.
func (ev evaluator) mode(mode string) (ok, audit bool, why string) {
	switch mode {
	case "all-unauthenticated":
		return true, false, "every client"
	case "audit":
		return true, true, "every client (audit: unauthorized connections are logged)"
	case "all-authenticated":
		return !ev.c.Unauthenticated, false, "meshed (mTLS) clients"
	case "cluster-unauthenticated":
		in, _ := ev.inNetworks(ev.cluster, nil)
		return in, false, "clients from the cluster networks"
	case "cluster-authenticated":
		in, _ := ev.inNetworks(ev.cluster, nil)
		return in && !ev.c.Unauthenticated, false, "meshed clients from the cluster networks"
	}
	return false, false, ""
}

// inNetworks reports whether the caller's IP is in one of cidrs and in none of
// its exceptions. An unknown IP is only in networks that cover every address.
func (ev evaluator) inNetworks(cidrs []string, except [][]string) (bool, bool) {
	for i, c := range cidrs {
		p, err := netip.ParsePrefix(strings.TrimSpace(c))
		if err != nil {
			continue
		}
		if !ev.c.IP.IsValid() {
			if p.Bits() == 0 && (i >= len(except) || len(except[i]) == 0) {
				return true, true
			}
			continue
		}
		if !p.Contains(ev.c.IP) {
			continue
		}
		excluded := false
		if i < len(except) {
			for _, e := range except[i] {
				if ep, err := netip.ParsePrefix(e); err == nil && ep.Contains(ev.c.IP) {
					excluded = true
				} else if a, err := netip.ParseAddr(e); err == nil && a == ev.c.IP {
					excluded = true
				}
			}
		}
		if !excluded {
			return true, true
		}
	}
	return false, ev.c.IP.IsValid()
}

// identityMatches is Linkerd's identity match: "*" any identity, "*.suffix" a
// suffix, else the exact name.
func identityMatches(pattern, id string) bool {
	switch {
	case id == "":
		return false
	case pattern == "*":
		return true
	case strings.HasPrefix(pattern, "*."):
		return strings.HasSuffix(id, pattern[1:])
	}
	return pattern == id
}

// routeRef is an HTTPRoute or GRPCRoute parented to the Server, with its matches.
type routeRef struct {
	kind, group, ns, name string
	rules                 []api.LinkerdHTTPRouteRule
	grpc                  bool
}

// matches reports whether a rule of the route matches the request: a rule without
// matches matches every request, a match needs its method and path (Exact,
// PathPrefix — the default — or RegularExpression) and no header or query
// condition (check gives neither).
func (r routeRef) matches(req Request) bool {
	if r.grpc {
		return true
	}
	if len(r.rules) == 0 {
		return true
	}
	for _, rule := range r.rules {
		if len(rule.Matches) == 0 {
			return true
		}
		for _, m := range rule.Matches {
			if pathMatches(m.Path, req.Path) && (m.Method == "" || m.Method == req.Method) && len(m.Headers) == 0 && len(m.QueryParams) == 0 {
				return true
			}
		}
	}
	return false
}

func pathMatches(m *api.RouteHTTPPathMatch, path string) bool {
	if m == nil || m.Value == nil {
		return true
	}
	v := *m.Value
	switch m.Type {
	case "Exact":
		return path == v
	case "RegularExpression":
		re, err := regexp.Compile("^(?:" + v + ")$")
		return err == nil && re.MatchString(path)
	}
	// PathPrefix matches whole segments.
	v = strings.TrimSuffix(v, "/")
	return v == "" || path == v || strings.HasPrefix(path, v+"/")
}

// routesOf are the routes of objs with Server s as parent, sorted by kind,
// namespace and name.
func routesOf(objs []unstructured.Unstructured, s *server) []routeRef {
	var out []routeRef
	for i := range objs {
		o := &objs[i]
		gvk := o.GroupVersionKind()
		if !authzRoute(gvk.Group, gvk.Kind) {
			continue
		}
		parented := false
		for _, p := range routeParents(o) {
			parented = parented || (p.ns == s.ns && p.name == s.name)
		}
		if !parented {
			continue
		}
		r := routeRef{kind: gvk.Kind, group: gvk.Group, ns: o.GetNamespace(), name: o.GetName(), grpc: gvk.Kind == api.KindGRPCRoute}
		var spec api.LinkerdHTTPRouteSpec
		decodeSpec(o, &spec)
		r.rules = spec.Rules
		out = append(out, r)
	}
	sort.SliceStable(out, func(a, b int) bool {
		return out[a].kind+"/"+out[a].ns+"/"+out[a].name < out[b].kind+"/"+out[b].ns+"/"+out[b].name
	})
	return out
}

// authorization is one object that may admit clients to a Server or route.
type authorization struct {
	kind, ns, name string
	saz            *api.ServerAuthorizationSpec
	policy         *api.AuthorizationPolicySpec
	route          string
	authn          authnSet
}

func (a authorization) words() string {
	w := a.kind + " " + a.ns + "/" + a.name
	if a.route != "" {
		w += " (on " + a.route + ")"
	}
	return w
}

// authorizationsFor are the authorizations of a Server, then those of the
// matched route: ServerAuthorizations naming or selecting it, AuthorizationPolicies
// targeting it or its namespace, and AuthorizationPolicies targeting the route.
func (ix *index) authorizationsFor(s *server, route *routeRef) []authorization {
	var out []authorization
	for i, o := range ix.sazs {
		spec := ix.sazSpecs[i]
		for _, t := range ix.sazTargets(o.GetNamespace(), spec.Server) {
			if t == s {
				out = append(out, authorization{kind: api.KindServerAuthorization, ns: o.GetNamespace(), name: o.GetName(), saz: spec})
			}
		}
	}
	var onRoute []authorization
	for _, i := range ix.policiesIn[s.ns] {
		o, spec := ix.policies[i], ix.policySpecs[i]
		a := authorization{kind: api.KindAuthorizationPolicy, ns: o.GetNamespace(), name: o.GetName(), policy: spec, authn: ix.authn}
		t := spec.TargetRef
		if t == nil {
			continue
		}
		switch strings.ToLower(t.Kind) {
		case "server":
			if t.Name == s.name {
				out = append(out, a)
			}
		case "namespace":
			if t.Name == s.ns {
				out = append(out, a)
			}
		case "httproute", "grpcroute":
			if route != nil && strings.EqualFold(t.Kind, route.kind) && t.Name == route.name && strings.EqualFold(t.Group, route.group) {
				a.route = route.kind + " " + route.ns + "/" + route.name
				onRoute = append(onRoute, a)
			}
		}
	}
	sortAuthz(out)
	sortAuthz(onRoute)
	return append(out, onRoute...)
}

func sortAuthz(as []authorization) {
	sort.SliceStable(as, func(i, j int) bool {
		return as[i].kind+"/"+as[i].ns+"/"+as[i].name < as[j].kind+"/"+as[j].ns+"/"+as[j].name
	})
}

// onRoute is " on <route>" for a route-level authorization.
func (a authorization) onRoute() string {
	if a.route == "" {
		return ""
	}
	return " on " + a.route
}

// admits reports whether the authorization admits the caller and, if so, which
// field does; when not, dec.Words may explain a near miss (a network the IP was
// not given for).
func (a authorization) admits(ev evaluator) (Decider, bool) {
	base := Decider{Kind: a.kind, Namespace: a.ns, Name: a.name}
	if a.saz != nil {
		return a.sazAdmits(ev, base)
	}
	return a.policyAdmits(ev, base)
}

func (a authorization) sazAdmits(ev evaluator, d Decider) (Decider, bool) {
	c := a.saz.Client
	if c == nil {
		return Decider{}, false
	}
	nets, where := c.Networks, "spec.client.networks"
	if len(nets) == 0 {
		// Linkerd's policy controller gives an authorization without networks the
		// cluster networks.
		nets, where = make([]api.Network, len(ev.cluster)), "no spec.client.networks: the cluster networks"
		for i, n := range ev.cluster {
			nets[i] = api.Network{Cidr: n}
		}
	}
	if !a.networksAdmit(ev, nets) {
		return a.networkMiss(ev, nets, where)
	}
	say := func(path, words string) (Decider, bool) {
		d.Path, d.Words = path, "admits "+words+a.onRoute()
		return d, true
	}
	if c.Unauthenticated {
		return say("spec.client.unauthenticated", "unauthenticated clients")
	}
	if m := c.MeshTLS; m != nil && !ev.c.Unauthenticated {
		for i, id := range m.Identities {
			if identityMatches(id, ev.c.Identity) {
				return say(fmt.Sprintf("spec.client.meshTLS.identities[%d]", i), "identity "+id)
			}
		}
		for i, sa := range m.ServiceAccounts {
			if ev.c.Identity == saIdentity(nsOr(sa.Namespace, a.ns), sa.Name, ev.td) {
				return say(fmt.Sprintf("spec.client.meshTLS.serviceAccounts[%d]", i), "service account "+nsOr(sa.Namespace, a.ns)+"/"+sa.Name)
			}
		}
	}
	return Decider{}, false
}

func nsOr(ns, def string) string {
	if ns == "" {
		return def
	}
	return ns
}

func saIdentity(ns, name, td string) string {
	return name + "." + ns + ".serviceaccount.identity.linkerd." + td
}

func (a authorization) networksAdmit(ev evaluator, nets []api.Network) bool {
	if len(nets) == 0 {
		return true
	}
	cidrs := make([]string, len(nets))
	except := make([][]string, len(nets))
	for i, n := range nets {
		cidrs[i], except[i] = n.Cidr, n.Except
	}
	in, _ := ev.inNetworks(cidrs, except)
	return in
}

func (a authorization) networkMiss(ev evaluator, nets []api.Network, path string) (Decider, bool) {
	if ev.c.IP.IsValid() {
		return Decider{}, false
	}
	var cidrs []string
	for _, n := range nets {
		cidrs = append(cidrs, n.Cidr)
	}
	return Decider{Words: a.words() + " admits only clients from " + strings.Join(cidrs, ", ") + " (" + path + "): give --from-ip to check it"}, false
}

// policyAdmits checks an AuthorizationPolicy: every required authentication must
// hold; a missing one makes Linkerd ignore the policy.
func (a authorization) policyAdmits(ev evaluator, d Decider) (Decider, bool) {
	var idAuth *Decider
	identityRequired := false
	for i, r := range a.policy.RequiredAuthenticationRefs {
		key := nsOr(r.Namespace, a.ns) + "/" + r.Name
		refPath := fmt.Sprintf("spec.requiredAuthenticationRefs[%d]", i)
		switch strings.ToLower(r.Kind) {
		case "meshtlsauthentication":
			identityRequired = true
			m := a.authn.meshTLS[key]
			if m == nil {
				return Decider{Words: a.words() + " is ignored: MeshTLSAuthentication " + key + " is not in the input"}, false
			}
			path, words, ok := meshTLSAdmits(m, ev, nsOr(r.Namespace, a.ns))
			if !ok {
				return Decider{}, false
			}
			ns, name, _ := strings.Cut(key, "/")
			idAuth = &Decider{Kind: api.KindMeshTLSAuthentication, Namespace: ns, Name: name, Path: path, Words: words}
			d.Path = refPath
		case "networkauthentication":
			n := a.authn.network[key]
			if n == nil {
				return Decider{Words: a.words() + " is ignored: NetworkAuthentication " + key + " is not in the input"}, false
			}
			if !a.networksAdmit(ev, n.Networks) {
				return a.networkMiss(ev, n.Networks, "NetworkAuthentication "+key)
			}
			if idAuth == nil && d.Path == "" {
				d.Path = refPath
				ns, name, _ := strings.Cut(key, "/")
				idAuth = &Decider{Kind: api.KindNetworkAuthentication, Namespace: ns, Name: name, Path: "spec.networks", Words: "the client's network"}
			}
		case "serviceaccount":
			identityRequired = true
			if ev.c.Identity != saIdentity(nsOr(r.Namespace, a.ns), r.Name, ev.td) {
				return Decider{}, false
			}
			d.Path = refPath
			idAuth = &Decider{Kind: api.KindServiceAccount, Namespace: nsOr(r.Namespace, a.ns), Name: r.Name, Words: "service account " + key}
		}
	}
	if identityRequired && ev.c.Unauthenticated {
		return Decider{}, false
	}
	d.Authentication = idAuth
	who := "unauthenticated clients"
	if idAuth != nil {
		who = idAuth.Words
	}
	d.Words = "admits " + who + a.onRoute()
	return d, true
}

// meshTLSAdmits checks a MeshTLSAuthentication's identities and identityRefs.
func meshTLSAdmits(m *api.MeshTLSAuthenticationSpec, ev evaluator, ns string) (path, words string, ok bool) {
	if ev.c.Unauthenticated {
		return "", "", false
	}
	for i, id := range m.Identities {
		if identityMatches(id, ev.c.Identity) {
			return "spec.identities[" + strconv.Itoa(i) + "]", "identity " + id, true
		}
	}
	cns, _, _ := identityParts(ev.c.Identity, ev.td)
	for i, r := range m.IdentityRefs {
		p := "spec.identityRefs[" + strconv.Itoa(i) + "]"
		switch {
		case strings.EqualFold(r.Kind, api.KindNamespace):
			if cns != "" && cns == r.Name {
				return p, "service accounts of namespace " + r.Name, true
			}
		case strings.EqualFold(r.Kind, api.KindServiceAccount):
			if r.Name == "*" && cns == nsOr(r.Namespace, ns) {
				return p, "every service account of namespace " + cns, true
			}
			if ev.c.Identity == saIdentity(nsOr(r.Namespace, ns), r.Name, ev.td) {
				return p, "service account " + nsOr(r.Namespace, ns) + "/" + r.Name, true
			}
		}
	}
	return "", "", false
}
