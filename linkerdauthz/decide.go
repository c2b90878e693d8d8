package linkerdauthz

import (
	"fmt"
	"net/netip"
	"slices"
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
	return newIndex(objs).decide(objs, c, dst, req, o)
}

// decide is Decide over the index of objs, built once for many calls (the
// access map); objs are read only for the routes of the Server taking the port.
func (ix *index) decide(objs []unstructured.Unstructured, c Caller, dst Destination, req Request, o Options) (Decision, error) {
	in, err := ix.inbound(objs, dst, req)
	if err != nil {
		return Decision{}, err
	}
	return ix.decideAt(in, c, o), nil
}

// inbound is what decide finds of a destination and request before it looks
// at the caller: the workload, the Server taking the port (nil: the default
// policy decides), the route matched and the authorizations to try. The
// access map finds it once per destination and asks it for every caller.
type inbound struct {
	dst Destination
	w   *workload
	srv *server
	// base is the Decision before any authorization is tried: the Server,
	// the route, the notes, and the Decider when no route matches.
	base  Decision
	found bool
	route *routeRef
	auths []authorization
}

// inbound finds what decide reads of dst and req.
func (ix *index) inbound(objs []unstructured.Unstructured, dst Destination, req Request) (*inbound, error) {
	w, err := ix.destination(&dst)
	if err != nil {
		return nil, err
	}
	in := &inbound{dst: dst, w: w}
	srvs := ix.serversFor(dst, w)
	if len(srvs) == 0 {
		return in, nil
	}
	d := &in.base
	s := srvs[0]
	in.srv = s
	if len(srvs) > 1 {
		var names []string
		for _, x := range srvs {
			names = append(names, x.ns+"/"+x.name)
		}
		d.Notes = append(d.Notes, "Servers "+strings.Join(names, ", ")+" all take this port: Linkerd keeps the oldest and rejects the others; "+names[0]+" is used here")
	}
	d.Server = s.ns + "/" + s.name
	in.route, in.found = d.matchRoute(objs, s, req)
	if in.found {
		in.auths = ix.authorizationsFor(s, in.route)
	}
	// Each caller's Decision appends to its own notes, never to the base's.
	d.Notes = slices.Clip(d.Notes)
	return in, nil
}

// decideAt is decide's answer for caller c at in.
func (ix *index) decideAt(in *inbound, c Caller, o Options) Decision {
	cluster := o.ClusterNetworks
	if len(cluster) == 0 {
		cluster = strings.Split(DefaultClusterNetworks, ",")
	}
	td := c.TrustDomain
	if td == "" {
		td = DefaultTrustDomain
	}
	ev := evaluator{c: c, td: td, cluster: cluster}
	if in.srv == nil {
		return ix.defaultDecision(ev, in.dst, in.w, o)
	}
	d := in.base
	if !in.found {
		return d
	}
	s, route := in.srv, in.route
	var misses []string // near misses, said only when nothing admits the client
	for _, a := range in.auths {
		d.Considered = append(d.Considered, a.words())
		if dec, ok := a.admits(ev); ok {
			d.Allow, d.Decider = true, dec
			return d
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
			return d
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
	return d
}

// matchRoute finds the route of Server s that takes req. found is false when the
// Server has routes and none matches: the proxy answers 404, which d then says.
func (d *Decision) matchRoute(objs []unstructured.Unstructured, s *server, req Request) (route *routeRef, found bool) {
	routes := routesOf(objs, s)
	if len(routes) == 0 {
		return nil, true
	}
	if req.Method == "" || req.Path == "" {
		req = Request{Method: orDefault(req.Method, "GET"), Path: orDefault(req.Path, "/")}
		d.Notes = append(d.Notes, fmt.Sprintf("HTTP routes have Server %s as parent; no full --method/--path given, %s %s assumed", d.Server, req.Method, req.Path))
	}
	for i := range routes {
		if routes[i].matches(req) {
			d.Route = routes[i].kind + " " + routes[i].ns + "/" + routes[i].name
			return &routes[i], true
		}
	}
	d.Decider = Decider{Kind: api.KindServer, Namespace: s.ns, Name: s.name,
		Words: fmt.Sprintf("no HTTPRoute or GRPCRoute of Server %s matches %s %s: the proxy answers 404", d.Server, req.Method, req.Path)}
	return nil, false
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
		if s.ns != dst.Namespace || !s.selects(dst.Labels) {
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
	if w != nil {
		p := port{number: dst.Port, name: dst.PortName}
		for _, wp := range w.ports {
			if p.number == 0 && p.name != "" && wp.name == p.name {
				p.number = wp.number
			}
		}
		if m, s := ix.resolveMode(o, dst.Namespace, w, &p); m != mode && strings.Contains(s, AnnotationRequireIdentityPorts) {
			mode, src = m, src+", port "+portWords(p)+" in "+AnnotationRequireIdentityPorts+" on "+w.ref
		}
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
