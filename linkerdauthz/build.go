package linkerdauthz

import (
	"fmt"
	"k8s.io/apimachinery/pkg/labels"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
)

// server is one Server of the set, decoded.
type server struct {
	ns, name, version string
	labels            map[string]string
	spec              api.ServerSpec
	// pods is spec.podSelector, converted once: the access map asks every
	// Server of a namespace about each of its destinations.
	pods labels.Selector
}

// selects reports whether the Server's podSelector selects pods labelled l
// (a Server without one selects none).
func (s *server) selects(l map[string]string) bool {
	if s.spec.PodSelector == nil {
		return false
	}
	if s.pods == nil {
		return matches(s.spec.PodSelector, l)
	}
	return s.pods.Matches(labels.Set(l))
}

// index is the decoded set Build works on.
type index struct {
	servers  []*server
	sazs     []*unstructured.Unstructured
	policies []*unstructured.Unstructured
	// sazSpecs and policySpecs are the specs of sazs and policies, decoded
	// once (decide reads them for every destination).
	sazSpecs    []*api.ServerAuthorizationSpec
	policySpecs []*api.AuthorizationPolicySpec
	// policiesIn are the indexes in policies of each namespace's.
	policiesIn map[string][]int
	routes     map[string][]parent // "ns/Kind/name" -> Server parents
	authn      authnSet
	nsModes    map[string]string // namespace -> annotation ("" when none)
	loads      []workload
}

// parent is a Server an HTTPRoute or GRPCRoute attaches to.
type parent struct{ ns, name string }

// HasLinkerd reports whether objs hold any policy.linkerd.io object, which is when
// the CLI prints the Linkerd preview at all.
func HasLinkerd(objs []unstructured.Unstructured) bool {
	for i := range objs {
		if objs[i].GroupVersionKind().Group == api.LinkerdGroup {
			return true
		}
	}
	return false
}

func decodeSpec(o *unstructured.Unstructured, out any) {
	if spec, ok := o.Object["spec"]; ok {
		_ = api.Decode(spec, out) // a malformed spec previews as an empty one; lint reports it
	}
}

func newIndex(objs []unstructured.Unstructured) *index {
	ix := &index{routes: map[string][]parent{}, nsModes: map[string]string{}, policiesIn: map[string][]int{},
		authn: authnSet{meshTLS: map[string]*api.MeshTLSAuthenticationSpec{}, network: map[string]*api.NetworkAuthenticationSpec{}}}
	for i := range objs {
		o := &objs[i]
		gvk := o.GroupVersionKind()
		key := o.GetNamespace() + "/" + o.GetName()
		switch {
		case gvk.Group == api.LinkerdGroup && gvk.Kind == api.KindServer:
			s := &server{ns: o.GetNamespace(), name: o.GetName(), version: gvk.Version, labels: o.GetLabels()}
			decodeSpec(o, &s.spec)
			s.pods = selector(s.spec.PodSelector)
			ix.servers = append(ix.servers, s)
		case gvk.Group == api.LinkerdGroup && gvk.Kind == api.KindServerAuthorization:
			ix.sazs = append(ix.sazs, o)
			spec := &api.ServerAuthorizationSpec{}
			decodeSpec(o, spec)
			ix.sazSpecs = append(ix.sazSpecs, spec)
		case gvk.Group == api.LinkerdGroup && gvk.Kind == api.KindAuthorizationPolicy:
			ix.policies = append(ix.policies, o)
			spec := &api.AuthorizationPolicySpec{}
			decodeSpec(o, spec)
			ix.policySpecs = append(ix.policySpecs, spec)
			ix.policiesIn[o.GetNamespace()] = append(ix.policiesIn[o.GetNamespace()], len(ix.policies)-1)
		case gvk.Group == api.LinkerdGroup && gvk.Kind == api.KindMeshTLSAuthentication:
			s := &api.MeshTLSAuthenticationSpec{}
			decodeSpec(o, s)
			ix.authn.meshTLS[key] = s
		case gvk.Group == api.LinkerdGroup && gvk.Kind == api.KindNetworkAuthentication:
			s := &api.NetworkAuthenticationSpec{}
			decodeSpec(o, s)
			ix.authn.network[key] = s
		case authzRoute(gvk.Group, gvk.Kind):
			ix.routes[routeKey(o.GetNamespace(), gvk.Group, gvk.Kind, o.GetName())] = routeParents(o)
		case gvk.Group == "" && gvk.Kind == api.KindNamespace:
			ix.nsModes[o.GetName()] = o.GetAnnotations()[AnnotationDefaultPolicy]
		default:
			if w, ok := workloadOf(o); ok {
				ix.loads = append(ix.loads, w)
			}
		}
	}
	sort.SliceStable(ix.servers, func(a, b int) bool {
		return ix.servers[a].ns+"/"+ix.servers[a].name < ix.servers[b].ns+"/"+ix.servers[b].name
	})
	return ix
}

// authzRoute reports whether group/kind is a route an AuthorizationPolicy may target
// in Linkerd: its own HTTPRoute and the Gateway API HTTPRoute and GRPCRoute
// (policy.linkerd.io has no GRPCRoute).
func authzRoute(group, kind string) bool {
	return (group == api.LinkerdGroup && kind == api.KindHTTPRoute) ||
		(group == api.GatewayGroup && (kind == api.KindHTTPRoute || kind == api.KindGRPCRoute))
}

// routeKey indexes a route by namespace, group, kind and name: a policy.linkerd.io
// and a Gateway API HTTPRoute of one name are different routes.
func routeKey(ns, group, kind, name string) string { return ns + "/" + group + "/" + kind + "/" + name }

// routeParents are the Servers a route names in parentRefs (kind Server of
// policy.linkerd.io, the default group only of Linkerd's own HTTPRoute); parents of
// other kinds (Services, Gateways) are outbound.
func routeParents(o *unstructured.Unstructured) []parent {
	refs, _, _ := unstructured.NestedSlice(o.Object, "spec", "parentRefs")
	var out []parent
	for _, r := range refs {
		m, _ := r.(map[string]any)
		kind, _ := m["kind"].(string)
		group, hasGroup := m["group"].(string)
		if !hasGroup {
			// The API server defaults a parentRef's group to the route's own.
			group = o.GroupVersionKind().Group
		}
		if kind != api.KindServer || group != api.LinkerdGroup {
			continue
		}
		name, _ := m["name"].(string)
		ns, _ := m["namespace"].(string)
		if ns == "" {
			ns = o.GetNamespace()
		}
		out = append(out, parent{ns: ns, name: name})
	}
	return out
}

// grant is one authorization resolved to its Servers.
type grant struct {
	clients []Client
	notes   []string
}

// Build computes the previews of a set of objects: one per Server (sorted by
// namespace and name), one per authorization whose target is not in the set, then
// the default-policy views (namespaces, workloads with uncovered ports, the cluster).
func Build(objs []unstructured.Unstructured, o Options) []Preview {
	return newIndex(objs).build(o)
}

// build is Build of a decoded set.
func (ix *index) build(o Options) []Preview {
	cluster := o.ClusterNetworks
	if len(cluster) == 0 {
		cluster = strings.Split(DefaultClusterNetworks, ",")
	}
	byServer := map[*server][]grant{}
	var orphans []Preview
	orphan := func(ns, name, pods string, g grant) {
		orphans = append(orphans, Preview{Namespace: ns, Name: name, Port: "-", Pods: pods,
			Policy: "not applied", Clients: g.clients, Notes: g.notes})
	}
	for _, saz := range ix.sazs {
		var spec api.ServerAuthorizationSpec
		decodeSpec(saz, &spec)
		via := "ServerAuthorization " + saz.GetNamespace() + "/" + saz.GetName()
		cs, notes := sazClients(saz.GetNamespace(), via, spec.Client, cluster)
		g := grant{clients: cs, notes: notes}
		targets := ix.sazTargets(saz.GetNamespace(), spec.Server)
		if len(targets) == 0 {
			why := "Server not in the linted set"
			if spec.Server != nil && spec.Server.Name == "" {
				why = "no Server of the linted set carries these labels"
			}
			orphan(saz.GetNamespace(), sazTargetWords(spec.Server), why, g)
		}
		for _, s := range targets {
			byServer[s] = append(byServer[s], g)
		}
	}
	// Linkerd authorizes kubelet probes on a Server only while no HTTPRoute or
	// GRPCRoute has it as a parent, whether or not a policy targets the route.
	routed := map[*server]bool{}
	for _, parents := range ix.routes {
		for _, p := range parents {
			for _, s := range ix.servers {
				if s.ns == p.ns && s.name == p.name {
					routed[s] = true
				}
			}
		}
	}
	for _, p := range ix.policies {
		var spec api.AuthorizationPolicySpec
		decodeSpec(p, &spec)
		cs, notes := policyClients(p.GetNamespace(), p.GetName(), &spec, ix.authn)
		ix.attachPolicy(p.GetNamespace(), spec.TargetRef, grant{clients: cs, notes: notes}, byServer, routed, orphan)
	}
	out := make([]Preview, 0, len(ix.servers)+len(orphans)+len(ix.nsModes)+len(ix.loads)+1)
	for _, s := range ix.servers {
		out = append(out, serverPreview(s, byServer[s], routed[s], cluster))
	}
	out = append(out, orphans...)
	return append(out, ix.defaults(o, cluster)...)
}

func sazTargetWords(r *api.ServerRef) string {
	switch {
	case r == nil:
		return "(no server)"
	case r.Name != "":
		return r.Name
	}
	return "(selector " + selectorWords(r.Selector) + ")"
}

// sazTargets are the Servers a ServerAuthorization names or selects (by the
// Servers' own labels), always in its namespace.
func (ix *index) sazTargets(ns string, r *api.ServerRef) []*server {
	if r == nil {
		return nil
	}
	var out []*server
	for _, s := range ix.servers {
		if s.ns != ns {
			continue
		}
		if (r.Name != "" && s.name == r.Name) || (r.Name == "" && r.Selector != nil && matches(r.Selector, s.labels)) {
			out = append(out, s)
		}
	}
	return out
}

// attachPolicy gives an AuthorizationPolicy's grant to what its targetRef means: a
// Server, every Server of its namespace, or the Server parents of a route (marked
// route-level). Anything else lands in orphans.
func (ix *index) attachPolicy(ns string, t *api.LinkerdLocalRef, g grant, byServer map[*server][]grant,
	routed map[*server]bool, orphan func(ns, name, pods string, g grant)) {
	if t == nil {
		orphan(ns, "(no target)", "no targetRef", g)
		return
	}
	kind := strings.ToLower(t.Kind)
	switch kind {
	case "server":
		for _, s := range ix.servers {
			if s.ns == ns && s.name == t.Name {
				byServer[s] = append(byServer[s], g)
				return
			}
		}
		orphan(ns, t.Name, "Server not in the linted set", g)
	case "namespace":
		found := false
		for _, s := range ix.servers {
			if s.ns == ns && t.Name == ns {
				byServer[s] = append(byServer[s], g)
				found = true
			}
		}
		if !found {
			orphan(ns, "(namespace "+t.Name+")", "every Server of the namespace; none in the linted set", g)
		}
	case "httproute", "grpcroute":
		routeKind := map[string]string{"httproute": api.KindHTTPRoute, "grpcroute": api.KindGRPCRoute}[kind]
		group := strings.ToLower(t.Group)
		if !authzRoute(group, routeKind) {
			orphan(ns, t.Name, routeKind+" of group "+t.Group+" is not a route Linkerd has", g)
			return
		}
		route := routeKind + " " + ns + "/" + t.Name
		parents, ok := ix.routes[routeKey(ns, group, routeKind, t.Name)]
		attached := false
		for _, p := range parents {
			for _, s := range ix.servers {
				if s.ns == p.ns && s.name == p.name {
					rg := grant{notes: g.notes}
					for _, c := range g.clients {
						c.Route = route
						rg.clients = append(rg.clients, c)
					}
					byServer[s] = append(byServer[s], rg)
					routed[s] = true
					attached = true
				}
			}
		}
		if !attached {
			why := "route-level, parent not in the linted set"
			if !ok {
				why = "route-level, " + route + " not in the linted set"
			}
			orphan(ns, routeKind+"/"+t.Name, why, g)
		}
	default:
		orphan(ns, t.Kind+"/"+t.Name, "target kind Linkerd does not authorize", g)
	}
}

// serverPreview unions a Server's grants and what its accessPolicy admits. Linkerd's
// policy controller adds a v1beta3 Server's accessPolicy to the Server's
// authorizations whether or not any authorization targets it (default deny, which
// adds no one; earlier versions have no accessPolicy and deny).
func serverPreview(s *server, gs []grant, routed bool, cluster []string) Preview {
	p := Preview{Namespace: s.ns, Name: s.name, Port: fmt.Sprint(s.spec.Port), Pods: serverPods(s)}
	serverLevel := false
	for _, g := range gs {
		p.Clients = append(p.Clients, g.clients...)
		p.Notes = append(p.Notes, g.notes...)
		for _, c := range g.clients {
			serverLevel = serverLevel || (c.Route == "" && c.Kind != ClientNone)
		}
	}
	if serverLevel {
		p.Policy = "authorizations"
		if mode := s.spec.AccessPolicy; s.version == "v1beta3" && mode != "" && mode != "deny" {
			p.Policy = "authorizations and accessPolicy: " + mode
			cs, notes := modeClients(mode, "Server accessPolicy "+mode, cluster)
			p.Clients = append(p.Clients, cs...)
			p.Notes = append(p.Notes, notes...)
		}
	} else {
		mode, why := s.spec.AccessPolicy, "accessPolicy"
		if s.version != "v1beta3" {
			mode, why = "deny", s.version+" Server (no accessPolicy)"
		} else if mode == "" {
			mode, why = "deny", "accessPolicy default"
		}
		p.Policy = "no authorization, " + why + ": " + mode
		cs, notes := modeClients(mode, "Server "+why+" "+mode, cluster)
		p.Clients = append(p.Clients, cs...)
		p.Notes = append(p.Notes, notes...)
	}
	if routed {
		p.Notes = append(p.Notes, "kubelet: a route has this Server as parent, so probe paths need a route and an authorization of their own")
	} else {
		p.Notes = append(p.Notes, "kubelet: HTTP probe paths stay open to unauthenticated clients while no HTTPRoute or GRPCRoute has this Server as parent")
	}
	return p
}

func serverPods(s *server) string {
	if s.spec.ExternalWorkloadSelector != nil {
		return "external workloads with " + selectorWords(s.spec.ExternalWorkloadSelector)
	}
	return "pods with " + selectorWords(s.spec.PodSelector)
}
