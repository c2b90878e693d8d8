package refs

import (
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/meshguard/meshguard/api"
)

// Options are the deployment settings resolution depends on.
type Options struct {
	// SystemNamespace is Kuma's: a policy there selects Dataplanes of every
	// namespace.
	SystemNamespace string
	// DefaultMesh is the mesh Kuma's control plane creates on its own (unless it
	// is told to skip it), so it exists without a Mesh object in the inventory.
	DefaultMesh string
	// Strict judges every reference, also into kinds and namespaces the inventory
	// holds nothing of: for a tree linted whole (--strict-references), where what
	// is not there does not exist.
	Strict bool
	// ReferenceGrants: Kuma 3.0 (and its preview) programs a Gateway API
	// HTTPRoute's backend in another namespace only when a ReferenceGrant there
	// permits it (kumahq/kuma #18075), so such backends are references to a grant.
	ReferenceGrants bool
	// GrantsUnlisted says the inventory was filled without ReferenceGrants (a
	// cluster read that does not list them, meshguard audit): a missing grant is
	// then judged only where the inventory holds some grant of the namespace.
	GrantsUnlisted bool
}

// OptionsFrom takes the options from the deployment settings.
func OptionsFrom(s api.Settings) Options {
	return Options{SystemNamespace: s.SystemNamespace, DefaultMesh: s.DefaultMesh,
		ReferenceGrants: !api.KumaBefore(s.KumaVersion, api.Kuma30)}
}

// Ref is one reference of an object: what it names and where it is written.
type Ref struct {
	// Path is the field path of the reference ("spec.to[0].targetRef").
	Path string
	// Class is what it names; Namespace is the namespace it is looked up in,
	// defaulted to the referring object's ("" for cluster-scoped classes, or for
	// a selection across every namespace).
	Class           Class
	Namespace, Name string
	// Selector, when set, selects objects of Class by label instead of by name.
	Selector *metav1.LabelSelector
	// Section is a Kuma sectionName, or a backendRef's or parentRef's port
	// written as a number; "" when none.
	Section string
	// Code is the finding's code when the reference resolves to nothing.
	Code string
	// Mesh is the mesh of a Kuma object's reference: Kuma resolves it among that
	// mesh's objects only. "" for Linkerd references.
	Mesh string
	// GrantFrom, when set, makes the reference a question for a ReferenceGrant in
	// Namespace: may HTTPRoutes of namespace GrantFrom name this object? (Kuma
	// 3.0, Options.ReferenceGrants.)
	GrantFrom string
}

// Extract returns the references of u, a defaulted object of a registry kind;
// objects of other kinds have none.
func Extract(u *unstructured.Unstructured, o Options) []Ref {
	gvk := u.GroupVersionKind()
	ns := u.GetNamespace()
	spec, _ := u.Object["spec"].(map[string]any)
	switch gvk.Group {
	case api.KumaGroup:
		var out []Ref
		// The default mesh always exists: no reference to keep for it.
		if mesh := u.GetLabels()[api.LabelMesh]; mesh != "" && mesh != o.DefaultMesh && gvk.Kind != string(api.RefMesh) {
			out = append(out, Ref{Path: "metadata.labels[" + api.LabelMesh + "]", Class: ClassMesh, Name: mesh, Code: CodeMesh})
		}
		mesh := u.GetLabels()[api.LabelMesh]
		if mesh == "" {
			mesh = o.DefaultMesh
		}
		w := kumaWalker{ns: ns, mesh: mesh, o: o, out: out}
		w.walk(spec, "spec", "")
		return w.out
	case api.LinkerdGroup, api.GatewayGroup:
		out := linkerdRefs(gvk.Group, gvk.Kind, ns, spec)
		if o.ReferenceGrants && gvk.Group == api.GatewayGroup && gvk.Kind == api.KindHTTPRoute {
			out = append(out, grantRefs(ns, spec)...)
		}
		return out
	}
	return nil
}

// kumaWalker collects the targetRefs and backendRefs of a Kuma spec, wherever
// they are (to[], from[], rules[].default.backendRefs, backends[].openTelemetry
// .backendRef, ...).
type kumaWalker struct {
	ns, mesh string
	o        Options
	out      []Ref
}

func (w *kumaWalker) walk(v any, path, key string) {
	switch v := v.(type) {
	case map[string]any:
		if key == "targetRef" || key == "backendRef" {
			w.ref(v, path, path == "spec.targetRef")
		}
		for k, c := range v {
			switch c.(type) {
			case map[string]any, []any:
				w.walk(c, path+"."+k, k)
			}
		}
	case []any:
		for i, c := range v {
			p := path + "[" + strconv.Itoa(i) + "]"
			if key == "backendRefs" {
				if m, ok := c.(map[string]any); ok {
					w.ref(m, p, false)
				}
				continue
			}
			w.walk(c, p, "")
		}
	}
}

// ref reads one Kuma targetRef or backendRef. top is the policy's own targetRef,
// the only place a Dataplane selector picks the proxies the policy configures.
func (w *kumaWalker) ref(m map[string]any, path string, top bool) {
	kind, name, ns := api.RefKind(str(m, "kind")), str(m, "name"), str(m, "namespace")
	labels := stringMap(m["labels"])
	if ns == "" {
		ns = w.ns
	}
	r := Ref{Path: path, Namespace: ns, Name: name, Code: CodeKumaRef, Section: str(m, "sectionName"), Mesh: w.mesh}
	if p, ok := number(m["port"]); ok && r.Section == "" {
		r.Section = strconv.FormatInt(p, 10)
	}
	switch kind {
	case api.RefMeshService:
		r.Class = ClassMeshService
	case api.RefMeshExternalService:
		r.Class, r.Section = ClassMeshExternal, "" // any sectionName names its one port
	case api.RefMeshMultiZoneService:
		r.Class = ClassMeshMultiZone
	case api.RefMeshHTTPRoute:
		r.Class = ClassMeshHTTPRoute
	case api.RefMeshGateway:
		r.Class, r.Namespace, r.Section = ClassMeshGateway, "", "" // a listener, not checked
	case api.RefKind(api.KindMeshOpenTelemetryBackend):
		r.Class, r.Code = ClassMeshOTelBackend, CodeOTelBackend
	case api.RefDataplane:
		if !top || len(labels) == 0 || name != "" {
			return
		}
		r = Ref{Path: path + ".labels", Class: ClassPod, Namespace: w.ns, Code: CodeSelector,
			Selector: &metav1.LabelSelector{MatchLabels: labels}}
		if w.ns == w.o.SystemNamespace {
			r.Namespace = "" // a system policy selects Dataplanes of every namespace
		}
		w.out = append(w.out, r)
		return
	default:
		return
	}
	if len(labels) > 0 {
		// Kuma resolves a labelled reference among the mesh's objects of the kind,
		// whatever their namespace.
		r.Path, r.Namespace, r.Name, r.Code = path+".labels", "", "", CodeSelector
		r.Selector = &metav1.LabelSelector{MatchLabels: labels}
		if r.Class == ClassMeshOTelBackend {
			r.Code = CodeOTelBackend
		}
	} else if name == "" {
		return
	}
	w.out = append(w.out, r)
}

// linkerdRefs are the references of a Linkerd or Gateway API object: an
// AuthorizationPolicy's target and authentications, a MeshTLSAuthentication's
// identity refs, a ServerAuthorization's Server and ServiceAccounts, a route's
// parents and backends, a Server's pod selector.
func linkerdRefs(group, kind, ns string, spec map[string]any) []Ref {
	var out []Ref
	switch {
	case group == api.LinkerdGroup && kind == api.KindAuthorizationPolicy:
		if t, ok := spec["targetRef"].(map[string]any); ok {
			c := ClassOf(str(t, "group"), str(t, "kind"))
			if c == ClassNamespace && str(t, "name") == ns {
				// The policy's own namespace exists: the policy is stored in it.
				c = ""
			}
			switch c {
			case ClassOf(api.LinkerdGroup, api.KindServer), ClassOf(api.LinkerdGroup, api.KindHTTPRoute),
				ClassOf(api.GatewayGroup, api.KindHTTPRoute), ClassOf(api.GatewayGroup, api.KindGRPCRoute), ClassNamespace:
				out = appendNamed(out, Ref{Path: "spec.targetRef", Class: c, Namespace: ns, Name: str(t, "name"), Code: CodeLinkerdTarget})
			}
		}
		list, _ := spec["requiredAuthenticationRefs"].([]any)
		for i, a := range list {
			am, _ := a.(map[string]any)
			c := ClassOf(str(am, "group"), str(am, "kind"))
			switch c {
			case ClassOf(api.LinkerdGroup, api.KindMeshTLSAuthentication), ClassOf(api.LinkerdGroup, api.KindNetworkAuthentication), ClassServiceAccount:
				out = appendNamed(out, Ref{Path: "spec.requiredAuthenticationRefs[" + strconv.Itoa(i) + "]", Class: c,
					Namespace: orNS(str(am, "namespace"), ns), Name: str(am, "name"), Code: CodeLinkerdAuthn})
			}
		}
	case group == api.LinkerdGroup && kind == api.KindMeshTLSAuthentication:
		list, _ := spec["identityRefs"].([]any)
		for i, a := range list {
			am, _ := a.(map[string]any)
			if c := ClassOf(str(am, "group"), str(am, "kind")); c == ClassServiceAccount || c == ClassNamespace {
				out = appendNamed(out, Ref{Path: "spec.identityRefs[" + strconv.Itoa(i) + "]", Class: c,
					Namespace: orNS(str(am, "namespace"), ns), Name: str(am, "name"), Code: CodeLinkerdAuthn})
			}
		}
	case group == api.LinkerdGroup && kind == api.KindServerAuthorization:
		server, _ := spec["server"].(map[string]any)
		out = appendNamed(out, Ref{Path: "spec.server.name", Class: ClassOf(api.LinkerdGroup, api.KindServer), Namespace: ns,
			Name: str(server, "name"), Code: CodeLinkerdTarget})
		client, _ := spec["client"].(map[string]any)
		mtls, _ := client["meshTLS"].(map[string]any)
		sas, _ := mtls["serviceAccounts"].([]any)
		for i, a := range sas {
			am, _ := a.(map[string]any)
			out = appendNamed(out, Ref{Path: "spec.client.meshTLS.serviceAccounts[" + strconv.Itoa(i) + "]", Class: ClassServiceAccount,
				Namespace: orNS(str(am, "namespace"), ns), Name: str(am, "name"), Code: CodeLinkerdAuthn})
		}
	case group == api.LinkerdGroup && kind == api.KindServer:
		sel, ok := spec["podSelector"].(map[string]any)
		var ls metav1.LabelSelector
		if ok && runtime.DefaultUnstructuredConverter.FromUnstructured(sel, &ls) == nil {
			out = append(out, Ref{Path: "spec.podSelector", Class: ClassPod, Namespace: ns, Selector: &ls, Code: CodeLinkerdPods})
		}
	case kind == api.KindHTTPRoute || kind == api.KindGRPCRoute || kind == api.KindTCPRoute || kind == api.KindTLSRoute:
		out = routeRefs(group, ns, spec)
	}
	return out
}

// routeRefs are a route's Server and Service parents and its Service backends.
// EgressNetwork parents are MG369's (lint/crossdoc_egress.go); Gateway parents
// belong to another project.
func routeRefs(group, ns string, spec map[string]any) []Ref {
	var out []Ref
	parents, _ := spec["parentRefs"].([]any)
	for i, p := range parents {
		pm, _ := p.(map[string]any)
		pr := api.ParentRef{Name: str(pm, "name"), Namespace: str(pm, "namespace")}
		if g, ok := pm["group"].(string); ok {
			pr.Group = &g
		}
		if k, ok := pm["kind"].(string); ok {
			pr.Kind = &k
		}
		r := Ref{Path: "spec.parentRefs[" + strconv.Itoa(i) + "]", Namespace: orNS(pr.Namespace, ns), Name: pr.Name, Code: CodeLinkerdParent}
		switch {
		case api.IsServerParent(pr, group):
			r.Class = ClassOf(api.LinkerdGroup, api.KindServer)
		case api.IsServiceParent(pr, group):
			r.Class = ClassService
			if n, ok := number(pm["port"]); ok {
				r.Section = strconv.FormatInt(n, 10)
			}
		default:
			continue
		}
		out = appendNamed(out, r)
	}
	rules, _ := spec["rules"].([]any)
	for i, rule := range rules {
		rm, _ := rule.(map[string]any)
		backends, _ := rm["backendRefs"].([]any)
		for j, b := range backends {
			bm, _ := b.(map[string]any)
			g, k := str(bm, "group"), str(bm, "kind")
			if (g != "" && g != "core") || (k != "" && k != api.KindService) {
				continue
			}
			r := Ref{Path: "spec.rules[" + strconv.Itoa(i) + "].backendRefs[" + strconv.Itoa(j) + "]", Class: ClassService,
				Namespace: orNS(str(bm, "namespace"), ns), Name: str(bm, "name"), Code: CodeLinkerdBackend}
			if n, ok := number(bm["port"]); ok {
				r.Section = strconv.FormatInt(n, 10)
			}
			out = appendNamed(out, r)
		}
	}
	return out
}

// appendNamed appends r when it names one object (validation reports an empty
// name; "*" is a wildcard, not a name).
func appendNamed(out []Ref, r Ref) []Ref {
	if r.Name == "" || r.Name == "*" {
		return out
	}
	if r.Class.ClusterScoped() {
		r.Namespace = ""
	}
	return append(out, r)
}

func orNS(ns, def string) string {
	if ns != "" {
		return ns
	}
	return def
}
