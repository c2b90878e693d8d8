package refs

import (
	"fmt"
	"strconv"

	"github.com/meshguard/meshguard/api"
)

// ClassReferenceGrant is the Gateway API's ReferenceGrant: a namespace's
// permission for routes of another namespace to name its objects.
const ClassReferenceGrant Class = api.GatewayGroup + "/" + api.KindReferenceGrant

// GrantPeer is one item of a ReferenceGrant's from or to list: from items name a
// group, kind and namespace, to items a group, kind and (optionally) a name.
type GrantPeer struct {
	Group, Kind, Namespace, Name string
}

// Grant is what a ReferenceGrant permits: routes matching a From item may name
// objects matching a To item in the grant's namespace.
type Grant struct {
	From, To []GrantPeer
}

// grantOf reads a ReferenceGrant's spec.
func grantOf(spec map[string]any) *Grant {
	peers := func(key string) []GrantPeer {
		list, _ := spec[key].([]any)
		out := make([]GrantPeer, 0, len(list))
		for _, it := range list {
			m, _ := it.(map[string]any)
			out = append(out, GrantPeer{Group: str(m, "group"), Kind: str(m, "kind"), Namespace: str(m, "namespace"), Name: str(m, "name")})
		}
		return out
	}
	return &Grant{From: peers("from"), To: peers("to")}
}

// permits reports whether g lets an HTTPRoute of namespace from name the object
// of class c called name, as Kuma's backendObjectReferenceMatchesGrant decides
// (pkg/plugins/runtime/k8s/controllers/gatewayapi/http_route_controller.go at
// the preview's commit): a from item for HTTPRoutes of that namespace and a to
// item of the class, without a name or with this one.
func (g *Grant) permits(from string, c Class, name string) bool {
	fromOK := false
	for _, f := range g.From {
		if f.Group == api.GatewayGroup && f.Kind == api.KindHTTPRoute && f.Namespace == from {
			fromOK = true
			break
		}
	}
	if !fromOK {
		return false
	}
	for _, t := range g.To {
		if t.Group == c.Group() && t.Kind == c.Kind() && (t.Name == "" || t.Name == name) {
			return true
		}
	}
	return false
}

// grantRefs are the backends of a Gateway API HTTPRoute of namespace ns that
// Kuma 3.0 programs only with a ReferenceGrant: when the route has a parent Kuma
// converts it for (api.IsKumaServiceParent), every rules[].backendRefs item and
// rules[].filters[].requestMirror.backendRef that names a Service (group "") or a
// kuma.io MeshService in another namespace, as Kuma's backendObjectReferencesOfRoute
// collects them.
func grantRefs(ns string, spec map[string]any) []Ref {
	parents, _ := spec["parentRefs"].([]any)
	kuma := false
	for _, p := range parents {
		pm, _ := p.(map[string]any)
		var pr api.ParentRef
		if g, ok := pm["group"].(string); ok {
			pr.Group = &g
		}
		if k, ok := pm["kind"].(string); ok {
			pr.Kind = &k
		}
		kuma = kuma || api.IsKumaServiceParent(pr, api.GatewayGroup)
	}
	if !kuma {
		return nil
	}
	var out []Ref
	rules, _ := spec["rules"].([]any)
	for i, rule := range rules {
		rm, _ := rule.(map[string]any)
		at := "spec.rules[" + strconv.Itoa(i) + "]"
		backends, _ := rm["backendRefs"].([]any)
		for j, b := range backends {
			bm, _ := b.(map[string]any)
			out = appendGrantRef(out, ns, at+".backendRefs["+strconv.Itoa(j)+"]", bm)
		}
		filters, _ := rm["filters"].([]any)
		for j, f := range filters {
			fm, _ := f.(map[string]any)
			mirror, _ := fm["requestMirror"].(map[string]any)
			if bm, ok := mirror["backendRef"].(map[string]any); ok && str(fm, "type") == "RequestMirror" {
				out = appendGrantRef(out, ns, at+".filters["+strconv.Itoa(j)+"].requestMirror.backendRef", bm)
			}
		}
	}
	return out
}

// appendGrantRef appends the backend bm written at path when it names a Service
// or MeshService of a namespace other than the route's ns.
func appendGrantRef(out []Ref, ns, path string, bm map[string]any) []Ref {
	to := str(bm, "namespace")
	if to == "" || to == ns {
		return out
	}
	if str(bm, "group") == "core" {
		return out // Kuma reads only "" as the core group: not a Service to it
	}
	kind := str(bm, "kind")
	if kind == "" {
		kind = api.KindService
	}
	c := ClassOf(str(bm, "group"), kind)
	if c != ClassService && c != ClassMeshService {
		return out // Kuma refuses other kinds before it looks for a grant
	}
	return appendNamed(out, Ref{Path: path, Class: c, Namespace: to, Name: str(bm, "name"), Code: CodeKumaGrant, GrantFrom: ns})
}

// checkGrant: a cross-namespace backend of a route Kuma 3.0 converts needs a
// ReferenceGrant in the backend's namespace. It is judged where the input can
// show that namespace (a ReferenceGrant, Service or MeshService of it, or
// --strict-references; only a ReferenceGrant when the inventory cannot hold
// them, Options.GrantsUnlisted); elsewhere the grant may simply be kept with the
// other namespace's objects.
func (r Resolver) checkGrant(ref Ref) (msg, code string, bad bool) {
	for _, e := range r.Inv.grants[ref.Namespace] {
		if e.Grant.permits(ref.GrantFrom, ref.Class, ref.Name) {
			return "", "", false
		}
	}
	inView := r.covers(ClassReferenceGrant, ref.Namespace) ||
		(!r.Opts.GrantsUnlisted && (r.covers(ClassService, ref.Namespace) || r.covers(ClassMeshService, ref.Namespace)))
	if !inView {
		return "", "", false
	}
	group := ref.Class.Group()
	if group == "" {
		group = `""`
	}
	return fmt.Sprintf("%s %s/%s is in another namespace, and no ReferenceGrant %s lets HTTPRoutes of namespace %s name it: Kuma 3.0 (kumahq/kuma #18075) "+
		"does not program this backend (ResolvedRefs=False, RefNotPermitted; its share of requests gets 500). Write, in namespace %s: "+
		"ReferenceGrant spec {from: [{group: %s, kind: %s, namespace: %s}], to: [{group: %s, kind: %s, name: %s}]}",
		ref.Class.Kind(), ref.Namespace, ref.Name, r.where(), ref.GrantFrom, ref.Namespace,
		api.GatewayGroup, api.KindHTTPRoute, ref.GrantFrom, group, ref.Class.Kind(), ref.Name), ref.Code, true
}
