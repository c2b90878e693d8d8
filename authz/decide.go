package authz

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

// This file answers `meshguard check` for Linkerd: for one call (a client, a pod
// and port, optionally an HTTP method and path) it finds what Linkerd's policy
// controller would serve the pod's inbound proxy — the Server that takes the port
// and its HTTP routes, or the default inbound policy — and which authorization
// admits the client, as the proxy checks them: a route's authorizations are the
// Server's plus the route's own, the first that admits the client decides, and
// none admitting denies.

// DefaultTrustDomain is the identity trust domain of a default Linkerd install.
const DefaultTrustDomain = "cluster.local"

// Caller is the client of a Linkerd check. Exactly one of Identity and
// Unauthenticated holds: Identity is the client's mesh TLS identity
// (sa.ns.serviceaccount.identity.linkerd.<trust domain>).
type Caller struct {
	Identity        string
	Unauthenticated bool
	// IP is the source address; invalid when unknown.
	IP netip.Addr
	// TrustDomain is the mesh's identity trust domain (empty: DefaultTrustDomain).
	TrustDomain string
}

// ParseCaller reads a client as the check command takes it: a ServiceAccount
// "ns/name", a mesh TLS identity, or, with unauthenticated, no identity at all.
func ParseCaller(from, ip, trustDomain string) (Caller, error) {
	if trustDomain == "" {
		trustDomain = DefaultTrustDomain
	}
	c := Caller{TrustDomain: trustDomain}
	if ip != "" {
		a, err := netip.ParseAddr(ip)
		if err != nil {
			return c, fmt.Errorf("--from-ip %q is not an IP address", ip)
		}
		c.IP = a
	}
	switch {
	case from == "":
		if ip == "" {
			return c, fmt.Errorf("no client: give --from (a ServiceAccount ns/name or a mesh TLS identity) or --from-ip for an unauthenticated client")
		}
		c.Unauthenticated = true
	case strings.Count(from, "/") == 1 && !strings.Contains(from, "."):
		ns, name, _ := strings.Cut(from, "/")
		if ns == "" || name == "" {
			return c, fmt.Errorf("--from %q: a ServiceAccount is namespace/name", from)
		}
		c.Identity = name + "." + ns + ".serviceaccount.identity.linkerd." + trustDomain
	case strings.Contains(from, ".serviceaccount.identity.linkerd."):
		if _, _, ok := identityParts(from, trustDomain); !ok {
			return c, fmt.Errorf("--from %q is not a mesh TLS identity of trust domain %s (want name.namespace.serviceaccount.identity.linkerd.%s)", from, trustDomain, trustDomain)
		}
		c.Identity = from
	default:
		return c, fmt.Errorf("--from %q is neither a ServiceAccount (namespace/name) nor a Linkerd mesh TLS identity (name.namespace.serviceaccount.identity.linkerd.%s)", from, trustDomain)
	}
	return c, nil
}

// identityParts splits name.ns.serviceaccount.identity.linkerd.<td>.
func identityParts(id, td string) (ns, name string, ok bool) {
	rest, found := strings.CutSuffix(id, ".serviceaccount.identity.linkerd."+td)
	if !found {
		return "", "", false
	}
	name, ns, found = strings.Cut(rest, ".")
	if !found || name == "" || ns == "" || strings.Contains(ns, ".") {
		return "", "", false
	}
	return ns, name, true
}

// Destination is the pod port a Linkerd check calls.
type Destination struct {
	Namespace string
	// Labels are the pod's labels; with Workload set they come from the workload.
	Labels map[string]string
	// Workload is "Kind/name" of a workload of the set (it gives labels, port
	// names and the default-policy annotation), or empty.
	Workload string
	// Port is the container port number, or 0 with PortName.
	Port     int64
	PortName string
}

// Request is the HTTP part of a call; empty Method and Path mean "not HTTP, or
// not said".
type Request struct{ Method, Path string }

// Decider names what decides a Linkerd call.
type Decider struct {
	// Kind, Namespace, Name identify the object (AuthorizationPolicy,
	// ServerAuthorization, Server, HTTPRoute, Namespace, a workload) or are empty
	// for the cluster default.
	Kind      string `json:"kind,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	// Path is the field that decides, e.g. spec.client.meshTLS.identities[0].
	Path string `json:"path,omitempty"`
	// Authentication is the authentication object an AuthorizationPolicy requires
	// that admits the client, with the field that does.
	Authentication *Decider `json:"authentication,omitempty"`
	// Words say it in a sentence.
	Words string `json:"words"`
}

// Decision is what Linkerd decides for one call.
type Decision struct {
	Allow bool
	// Audit is set when the deciding mode is audit: allowed, but logged.
	Audit   bool
	Decider Decider
	// Server is "ns/name" of the Server taking the port; empty under the default
	// policy. Route is the HTTP route that matched, if any.
	Server, Route string
	// Default is set when no Server takes the port: the default policy decides.
	Default bool
	// Considered are the authorizations that apply, in the order they were tried.
	Considered []string
	Notes      []string
}

// Decide answers one call against objs, the set Build previews.
func Decide(objs []unstructured.Unstructured, c Caller, dst Destination, req Request, o Options) (Decision, error) {
	ix := newIndex(objs)
	cluster := o.ClusterNetworks
	if len(cluster) == 0 {
		cluster = strings.Split(DefaultClusterNetworks, ",")
	}
	td := c.TrustDomain
	if td == "" {
		td = DefaultTrustDomain
	}
	w, err := ix.destination(&dst)
	if err != nil {
		return Decision{}, err
	}
	ev := evaluator{c: c, td: td, cluster: cluster}
	srvs := ix.serversFor(dst, w)
	if len(srvs) == 0 {
		return ix.defaultDecision(ev, dst, w, o), nil
	}
	var d Decision
	s := srvs[0]
	if len(srvs) > 1 {
		var names []string
		for _, x := range srvs {
			names = append(names, x.ns+"/"+x.name)
		}
		d.Notes = append(d.Notes, "Servers "+strings.Join(names, ", ")+" all take this port: Linkerd keeps the oldest and rejects the others; "+names[0]+" is used here")
	}
	d.Server = s.ns + "/" + s.name
	routes := routesOf(objs, s)
	var route *routeRef
	if len(routes) > 0 {
		if req.Method == "" || req.Path == "" {
			req = Request{Method: orDefault(req.Method, "GET"), Path: orDefault(req.Path, "/")}
			d.Notes = append(d.Notes, fmt.Sprintf("HTTP routes have Server %s as parent; no full --method/--path given, %s %s assumed", d.Server, req.Method, req.Path))
		}
		for i := range routes {
			if routes[i].matches(req) {
				route = &routes[i]
				break
			}
		}
		if route == nil {
			d.Decider = Decider{Kind: api.KindServer, Namespace: s.ns, Name: s.name,
				Words: fmt.Sprintf("no HTTPRoute or GRPCRoute of Server %s matches %s %s: the proxy answers 404", d.Server, req.Method, req.Path)}
			return d, nil
		}
		d.Route = route.kind + " " + route.ns + "/" + route.name
	}
	var misses []string // near misses, said only when nothing admits the client
	for _, a := range ix.authorizationsFor(s, route) {
		d.Considered = append(d.Considered, a.words())
		if dec, ok := a.admits(ev); ok {
			d.Allow, d.Decider = true, dec
			return d, nil
		} else if dec.Words != "" {
			misses = append(misses, dec.Words)
		}
	}
	if s.spec.AccessPolicy != "" && s.version == "v1beta3" {
		d.Considered = append(d.Considered, "Server "+d.Server+" accessPolicy "+s.spec.AccessPolicy)
		if ok, audit, why := ev.mode(s.spec.AccessPolicy); ok {
			d.Allow, d.Audit = true, audit
			d.Decider = Decider{Kind: api.KindServer, Namespace: s.ns, Name: s.name, Path: "spec.accessPolicy",
				Words: "Server " + d.Server + " accessPolicy " + s.spec.AccessPolicy + " admits " + why}
			return d, nil
		}
	}
	words := "no authorization of Server " + d.Server + " admits the client"
	if route != nil {
		words = "no authorization of Server " + d.Server + " or " + d.Route + " admits the client"
	}
	mode := "deny"
	if s.version == "v1beta3" && s.spec.AccessPolicy != "" {
		mode = s.spec.AccessPolicy
	}
	d.Decider = Decider{Kind: api.KindServer, Namespace: s.ns, Name: s.name, Words: words + " (accessPolicy " + mode + ")"}
	d.Notes = append(d.Notes, misses...)
	return d, nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// destination fills dst from the workload it names and returns that workload.
func (ix *index) destination(dst *Destination) (*workload, error) {
	if dst.Workload == "" {
		if dst.Port == 0 && dst.PortName == "" {
			return nil, fmt.Errorf("no destination port: give --port")
		}
		return nil, nil
	}
	for i := range ix.loads {
		w := &ix.loads[i]
		if w.ns != dst.Namespace || !strings.EqualFold(w.ref, dst.Workload) {
			continue
		}
		dst.Labels = w.labels
		switch {
		case dst.Port == 0 && dst.PortName == "" && len(w.ports) == 1:
			dst.Port, dst.PortName = w.ports[0].number, w.ports[0].name
		case dst.Port == 0 && dst.PortName == "":
			return nil, fmt.Errorf("%s in namespace %s declares %d ports: give --port", w.ref, w.ns, len(w.ports))
		}
		for _, p := range w.ports {
			if dst.PortName != "" && p.name == dst.PortName {
				dst.Port = p.number
			} else if dst.Port != 0 && p.number == dst.Port && dst.PortName == "" {
				dst.PortName = p.name
			}
		}
		return w, nil
	}
	return nil, fmt.Errorf("no workload %s in namespace %s in the input", dst.Workload, dst.Namespace)
}

// serversFor are the Servers of the pod's namespace whose podSelector matches the
// pod and whose port is the port's number or name, sorted by name.
func (ix *index) serversFor(dst Destination, w *workload) []*server {
	var out []*server
	for _, s := range ix.servers {
		if s.ns != dst.Namespace || s.spec.PodSelector == nil || !matches(s.spec.PodSelector, dst.Labels) {
			continue
		}
		switch v := s.spec.Port.(type) {
		case string:
			if v != "" && v == dst.PortName {
				out = append(out, s)
			}
		default:
			if n := toInt(v); n != 0 && n == dst.Port {
				out = append(out, s)
			}
		}
	}
	return out
}

// defaultDecision is the default inbound policy's answer for a port no Server
// takes: the pod's (workload's) annotation, the namespace's, or the cluster's.
func (ix *index) defaultDecision(ev evaluator, dst Destination, w *workload, o Options) Decision {
	mode, src := o.DefaultPolicy, "cluster default (proxy.defaultInboundPolicy)"
	if mode == "" {
		mode = DefaultMode
	}
	dec := Decider{}
	if m := ix.nsModes[dst.Namespace]; m != "" {
		mode, src = m, "annotation "+AnnotationDefaultPolicy+" on Namespace "+dst.Namespace
		dec = Decider{Kind: api.KindNamespace, Name: dst.Namespace, Path: "metadata.annotations[" + AnnotationDefaultPolicy + "]"}
	}
	if w != nil && w.mode != "" {
		kind, name, _ := strings.Cut(w.ref, "/")
		mode, src = w.mode, "annotation "+AnnotationDefaultPolicy+" on "+w.ref
		dec = Decider{Kind: kind, Namespace: w.ns, Name: name, Path: "metadata.annotations[" + AnnotationDefaultPolicy + "]"}
	}
	d := Decision{Default: true}
	ok, audit, why := ev.mode(mode)
	d.Allow, d.Audit = ok, audit
	verdict := "denies"
	if ok {
		verdict = "admits " + why
	}
	dec.Words = fmt.Sprintf("no Server takes port %s: default is %s (%s), which %s", portWords(port{number: dst.Port, name: dst.PortName}), mode, src, verdict)
	d.Decider = dec
	d.Considered = []string{"default inbound policy " + mode + " (" + src + ")"}
	if w == nil && dst.Namespace != "" {
		d.Notes = append(d.Notes, "the destination is given by labels: a default-inbound-policy annotation on its workload or pod is not known; name the workload with --to Kind/name to read it")
	}
	return d
}

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
	for _, o := range ix.sazs {
		var spec api.ServerAuthorizationSpec
		decodeSpec(o, &spec)
		for _, t := range ix.sazTargets(o.GetNamespace(), spec.Server) {
			if t == s {
				out = append(out, authorization{kind: api.KindServerAuthorization, ns: o.GetNamespace(), name: o.GetName(), saz: &spec})
			}
		}
	}
	var onRoute []authorization
	for _, o := range ix.policies {
		if o.GetNamespace() != s.ns {
			continue
		}
		spec := &api.AuthorizationPolicySpec{}
		decodeSpec(o, spec)
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
	if !a.networksAdmit(ev, c.Networks) {
		return a.networkMiss(ev, c.Networks, "spec.client.networks")
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
			idAuth = &Decider{Kind: "ServiceAccount", Namespace: nsOr(r.Namespace, a.ns), Name: r.Name, Words: "service account " + key}
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
		case strings.EqualFold(r.Kind, "ServiceAccount"):
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
