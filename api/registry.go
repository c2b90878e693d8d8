package api

import (
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Family groups kinds by the mesh that defines them; rules and previews differ per
// family, the registry and the doors do not.
type Family string

// The meshes meshguard guards.
const (
	FamilyKuma    Family = "kuma"
	FamilyLinkerd Family = "linkerd"
)

// Section is a bit set of the top-level parts a policy spec can have.
type Section uint8

// The top-level sections of a Kuma policy spec.
const (
	SecTargetRef Section = 1 << iota
	SecTo
	SecFrom
	SecRules
	SecDefault
)

// Has reports whether every bit of o is in s.
func (s Section) Has(o Section) bool { return s&o == o }

// Names lists the section keys as they appear in YAML, for docs and messages.
func (s Section) Names() []string {
	var out []string
	for _, n := range []struct {
		s Section
		k string
	}{{SecTargetRef, "targetRef"}, {SecTo, "to"}, {SecFrom, "from"}, {SecRules, "rules"}, {SecDefault, "default"}} {
		if s.Has(n.s) {
			out = append(out, n.k)
		}
	}
	return out
}

// Kind describes one supported resource kind. It is the single source for decoding
// (which Go type), validation tables (which targetRef kinds where), the chart's
// webhook rules (group, version, plural) and the rule docs.
type Kind struct {
	Group   string
	Version string
	Kind    string
	Plural  string
	Family  Family
	// Sections are the top-level spec keys the kind has.
	Sections Section
	// TopLevel, To, From and BackendRefs are the targetRef kinds allowed in each place.
	TopLevel    []RefKind
	To          []RefKind
	From        []RefKind
	BackendRefs []RefKind
	// MirrorRefs are the kinds a route's requestMirror.backendRef may name.
	MirrorRefs []RefKind
	// ToGateway replaces To when the top-level targetRef is a MeshGateway or a
	// MeshHTTPRoute (nil: same as To).
	ToGateway []RefKind
	// SystemOnly are top-level kinds (also listed in TopLevel) that Kuma accepts only
	// from the system namespace: MeshGateway for routes and for policies that
	// configure more than Envoy clusters (Kuma's policy-on-namespace MADR), MeshHTTPRoute for outbound ones.
	SystemOnly []RefKind
	// Route marks MeshHTTPRoute and MeshTCPRoute, which Kuma only lets target a
	// MeshGateway from the system namespace.
	Route bool
	// NewSpec returns a pointer to the typed spec the kind decodes into.
	NewSpec func() any
	// Deprecated, when set, names the replacement of a deprecated version.
	Deprecated string
	// Summary is one line for `meshguard rules`, the docs and the chart.
	Summary string
	// Resource marks a Kuma resource that is not a targetRef policy (Mesh,
	// MeshService, ...): no sections, role or sugar.
	Resource bool
	// MeshScoped marks resources that belong to a mesh (the kuma.io/mesh label);
	// ZoneProvided those a zone creates, which get the zone origin labels there.
	MeshScoped   bool
	ZoneProvided bool
	// ClusterScoped marks kinds whose objects have no namespace (Mesh, MeshGateway):
	// the linter gives them none, as `kubectl apply -n` does not.
	ClusterScoped bool
	// ReadOnlyOn is the control-plane mode on which Kuma refuses users' writes of
	// this kind, because only the other side provides it (empty: none).
	ReadOnlyOn Mode
	// SystemNamespaceOnly marks kinds Kuma accepts only in the system namespace.
	SystemNamespaceOnly bool
	// Watched marks kinds whose stored objects the webhook reads from an informer
	// cache (previews and the Server conflict check); the chart's ClusterRole is
	// generated from it (see Registry.Watched), so a new cache cannot lack RBAC.
	Watched bool
}

// GVK is the kind's group/version/kind.
func (k *Kind) GVK() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
}

// GVR is the kind's group/version/resource, as webhook rules and clients need it.
func (k *Kind) GVR() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: k.Group, Version: k.Version, Resource: k.Plural}
}

// AllowsTo reports whether ref is an allowed `to` kind given the top-level kind.
func (k *Kind) AllowsTo(top RefKind, ref RefKind) bool {
	return containsRef(k.ToKinds(top), ref)
}

// ToKinds returns the allowed `to` kinds given the top-level kind.
func (k *Kind) ToKinds(top RefKind) []RefKind {
	if (top == RefMeshGateway || top == RefMeshHTTPRoute) && k.ToGateway != nil {
		return k.ToGateway
	}
	return k.To
}

func containsRef(list []RefKind, r RefKind) bool {
	for _, x := range list {
		if x == r {
			return true
		}
	}
	return false
}

// ContainsRef reports whether r is in list.
func ContainsRef(list []RefKind, r RefKind) bool { return containsRef(list, r) }

// Registry is the set of supported kinds, looked up by GVK.
type Registry struct {
	kinds []*Kind
	byGVK map[schema.GroupVersionKind]*Kind
}

// NewRegistry builds a registry from kinds; it is exported so tests and future
// families can assemble their own.
func NewRegistry(kinds ...*Kind) *Registry {
	r := &Registry{byGVK: map[schema.GroupVersionKind]*Kind{}}
	for _, k := range kinds {
		r.kinds = append(r.kinds, k)
		r.byGVK[k.GVK()] = k
	}
	return r
}

// Lookup finds a kind by GVK; nil means meshguard does not guard it.
func (r *Registry) Lookup(gvk schema.GroupVersionKind) *Kind { return r.byGVK[gvk] }

// Kinds returns every kind in registration order.
func (r *Registry) Kinds() []*Kind { return r.kinds }

// Groups returns the API groups of the registry, sorted, for webhook rules.
func (r *Registry) Groups() []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range r.kinds {
		if !seen[k.Group] {
			seen[k.Group] = true
			out = append(out, k.Group)
		}
	}
	sort.Strings(out)
	return out
}

// IsGroupOf reports whether group belongs to a family the registry guards; the linter
// uses it to tell a typo'd kind from a resource of another project.
func (r *Registry) IsGroupOf(group string) bool {
	for _, k := range r.kinds {
		if k.Group == group {
			return true
		}
	}
	return false
}
