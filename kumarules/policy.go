package kumarules

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
)

// Meta identifies a policy in a result: the origins of every merged conf are Metas,
// so a user can tell which policy (and, with Origin.Index, which item) a field came from.
type Meta struct {
	// Type is the policy kind (MeshTimeout, ...), Kuma's resource type.
	Type string `json:"type"`
	// Name is the resource name as Kuma stores it.
	Name string `json:"name"`
	// Mesh is the mesh the policy belongs to.
	Mesh string `json:"mesh"`
	// Labels are the policy's labels; origin, role and display name are read from them.
	Labels map[string]string `json:"labels,omitempty"`
}

// key is the identity Kuma dedupes origins by (type, mesh, name).
func (m Meta) key() string { return m.Type + "/" + m.Mesh + "/" + m.Name }

// DisplayName is the name Kuma sorts by: the kuma.io/display-name label when set
// (the name without namespace or sync hash suffixes), else the name.
func (m Meta) DisplayName() string {
	if d := m.Labels[labelDisplayName]; d != "" {
		return d
	}
	return m.Name
}

const (
	labelDisplayName = "kuma.io/display-name"
	defaultMesh      = "default"
)

// Policy is one Kuma targetRef policy as the engine reads it: its identity and its
// spec as decoded JSON.
type Policy struct {
	Meta
	// Spec is the policy's spec as decoded JSON (maps, slices, strings, numbers, bools).
	Spec map[string]any
}

// PolicyFromObject turns an unstructured Kuma policy (from a Kubernetes manifest
// or api.FromUniversal) into the engine's form. The mesh comes from the
// kuma.io/mesh label, "default" when absent, as Kuma assumes.
func PolicyFromObject(u *unstructured.Unstructured) (Policy, error) {
	spec, ok := u.Object["spec"].(map[string]any)
	if !ok && u.Object["spec"] != nil {
		return Policy{}, fmt.Errorf("%s %s: spec: must be an object", u.GetKind(), u.GetName())
	}
	labels := u.GetLabels()
	mesh := labels[api.LabelMesh]
	if mesh == "" {
		mesh = defaultMesh
	}
	return Policy{Meta: Meta{Type: u.GetKind(), Name: u.GetName(), Mesh: mesh, Labels: labels}, Spec: spec}, nil
}

// TargetRef is a targetRef as the engine reads it.
type TargetRef struct {
	Kind        string
	Name        string
	Namespace   string
	SectionName string
	// Tags select proxies (MeshSubset, MeshServiceSubset) by tag.
	Tags map[string]string
	// Labels select resources by label; HasLabels tells `labels: {}` from none.
	Labels    map[string]string
	HasLabels bool
	// ProxyTypes, when set, limit Mesh and MeshSubset to Sidecar or Gateway proxies.
	ProxyTypes []string
}

// parseTargetRef reads a targetRef object; a missing one is Kind Mesh, as Kuma's
// syntactic sugar makes it.
func parseTargetRef(v any) TargetRef {
	m, _ := v.(map[string]any)
	t := TargetRef{Kind: str(m["kind"]), Name: str(m["name"]), Namespace: str(m["namespace"]),
		SectionName: str(m["sectionName"]), Tags: strMap(m["tags"])}
	if l, ok := m["labels"]; ok && l != nil {
		t.Labels, t.HasLabels = strMap(l), true
	}
	if pts, ok := m["proxyTypes"].([]any); ok {
		for _, x := range pts {
			t.ProxyTypes = append(t.ProxyTypes, str(x))
		}
	}
	if t.Kind == "" {
		t.Kind = refMesh
	}
	return t
}

// The targetRef kinds the engine distinguishes.
const (
	refMesh                 = string(api.RefMesh)
	refDataplane            = string(api.RefDataplane)
	refMeshSubset           = string(api.RefMeshSubset)
	refMeshGateway          = string(api.RefMeshGateway)
	refMeshService          = string(api.RefMeshService)
	refMeshExternalService  = string(api.RefMeshExternalService)
	refMeshMultiZoneService = string(api.RefMeshMultiZoneService)
	refMeshServiceSubset    = string(api.RefMeshServiceSubset)
	refMeshHTTPRoute        = string(api.RefMeshHTTPRoute)
	serviceTag              = "kuma.io/service"
)

// isOldKind reports the kinds Kuma's subset rules (from/to/single) consider: the
// ones that existed before policies could target real resources.
func isOldKind(k string) bool {
	switch k {
	case refMesh, refMeshSubset, refMeshServiceSubset, refMeshService, refMeshGateway, refMeshHTTPRoute:
		return true
	}
	return false
}

// TopRef is the policy's top-level targetRef (Mesh when absent).
func (p Policy) TopRef() TargetRef { return parseTargetRef(p.Spec["targetRef"]) }

func str(v any) string {
	s, _ := v.(string)
	return s
}

func strMap(v any) map[string]string {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, x := range m {
		out[k] = fmt.Sprint(x)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
