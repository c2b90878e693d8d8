// Package api holds the resource types meshguard understands and the one registry
// that describes them. Everything else (defaults, validate, compile, lint, the webhook
// and the chart) reads kinds from the registry instead of keeping its own list, so a
// new kind is added in exactly one place.
package api

// RefKind is the kind of object a Kuma targetRef or backendRef points at. It is a
// distinct type so that tables of allowed kinds cannot be confused with resource
// kinds of the registry.
type RefKind string

// The targetRef kinds Kuma knows. MeshGatewayRoute is kept because the MeshTrafficPermission MADR (the
// MeshTrafficPermission MADR) uses it for cross-mesh permissions.
const (
	RefMesh                 RefKind = "Mesh"
	RefMeshSubset           RefKind = "MeshSubset"
	RefMeshService          RefKind = "MeshService"
	RefMeshServiceSubset    RefKind = "MeshServiceSubset"
	RefMeshGateway          RefKind = "MeshGateway"
	RefMeshHTTPRoute        RefKind = "MeshHTTPRoute"
	RefMeshExternalService  RefKind = "MeshExternalService"
	RefMeshMultiZoneService RefKind = "MeshMultiZoneService"
	RefDataplane            RefKind = "Dataplane"
	RefMeshGatewayRoute     RefKind = "MeshGatewayRoute"
)

// AllRefKinds lists every targetRef kind in the order Kuma documents them; it is the
// enum used when a kind is not recognised at all.
func AllRefKinds() []RefKind {
	return []RefKind{RefMesh, RefMeshSubset, RefMeshService, RefMeshServiceSubset,
		RefMeshGateway, RefMeshHTTPRoute, RefMeshExternalService, RefMeshMultiZoneService,
		RefDataplane, RefMeshGatewayRoute}
}

// TargetRef is Kuma's common reference to a group of proxies, a service or a route.
// Fields are plain values: an empty string means "not set", which is how Kuma's own
// validator treats them too.
type TargetRef struct {
	Kind        RefKind           `json:"kind,omitempty"`
	Name        string            `json:"name,omitempty"`
	Namespace   string            `json:"namespace,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Tags        map[string]string `json:"tags,omitempty"`
	Mesh        string            `json:"mesh,omitempty"`
	ProxyTypes  []string          `json:"proxyTypes,omitempty"`
	SectionName string            `json:"sectionName,omitempty"`
}

// BackendRef is a route destination: a targetRef plus a weight and a port.
type BackendRef struct {
	Kind      RefKind           `json:"kind,omitempty"`
	Name      string            `json:"name,omitempty"`
	Namespace string            `json:"namespace,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
	Tags      map[string]string `json:"tags,omitempty"`
	Mesh      string            `json:"mesh,omitempty"`
	// ProxyTypes and SectionName are the targetRef fields Kuma's BackendRef embeds
	// too; the field rules decide where they are allowed.
	ProxyTypes  []string `json:"proxyTypes,omitempty"`
	SectionName string   `json:"sectionName,omitempty"`
	Port        *int64   `json:"port,omitempty"`
	Weight      *int64   `json:"weight,omitempty"`
}

// AsTargetRef lets backendRefs go through the same per-kind field rules as targetRefs.
func (b BackendRef) AsTargetRef() TargetRef {
	return TargetRef{Kind: b.Kind, Name: b.Name, Namespace: b.Namespace, Labels: b.Labels, Tags: b.Tags, Mesh: b.Mesh,
		ProxyTypes: b.ProxyTypes, SectionName: b.SectionName}
}

// Tags returns the tag view of a targetRef used by the MeshTrafficPermission MADR's rule view:
// MeshService adds kuma.io/service=name, MeshServiceSubset adds its tags too,
// MeshSubset is its tags, Mesh is no tags at all.
func (t TargetRef) TagView() map[string]string {
	out := map[string]string{}
	switch t.Kind {
	case RefMeshService:
		out[ServiceTag] = t.Name
	case RefMeshServiceSubset:
		for k, v := range t.Tags {
			out[k] = v
		}
		out[ServiceTag] = t.Name
	case RefMeshSubset:
		for k, v := range t.Tags {
			out[k] = v
		}
	}
	return out
}

// Well-known Kuma labels and tags. Owned labels are the ones meshguard computes and
// therefore refuses when a user sets them to something else.
const (
	ServiceTag        = "kuma.io/service"
	ZoneTag           = "kuma.io/zone"
	LabelMesh         = "kuma.io/mesh"
	LabelNamespace    = "k8s.kuma.io/namespace"
	LabelPolicyRole   = "kuma.io/policy-role"
	LabelOrigin       = "kuma.io/origin"
	LabelZone         = "kuma.io/zone"
	LabelEnv          = "kuma.io/env"
	LabelDisplayName  = "kuma.io/display-name"
	OriginZone        = "zone"
	OriginGlobal      = "global"
	EnvKubernetes     = "kubernetes"
	DefaultSystemNS   = "kuma-system"
	DefaultMeshName   = "default"
	MaxMeshNameLength = 253
)

// PolicyRole is the value of kuma.io/policy-role (Kuma's policy-on-namespace MADR, "policy on namespace").
type PolicyRole string

// The four roles a Kuma policy can have.
const (
	RoleSystem        PolicyRole = "system"
	RoleProducer      PolicyRole = "producer"
	RoleConsumer      PolicyRole = "consumer"
	RoleWorkloadOwner PolicyRole = "workload-owner"
)
