package kumainspect

import (
	"strings"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumarules"
)

// dataplanesList is the body of …/_resources/dataplanes and meshservices/…/_dataplanes
// (InspectDataplanesForPolicy).
type dataplanesList struct {
	Items []meta `json:"items"`
	Total int    `json:"total"`
}

// policyByPlural is the policy kind whose API collection is plural.
func (s *Store) policyByPlural(plural string) (string, bool) {
	for _, kind := range s.types.policies {
		if k := s.reg.Storage(api.KumaGroup, kind); k != nil && strings.EqualFold(k.Plural, plural) {
			return kind, true
		}
	}
	return "", false
}

// policyDataplanes answers /meshes/{mesh}/{policies}/{name}/_resources/dataplanes:
// the Dataplanes of the mesh the policy's top-level targetRef selects, by name, as
// Kuma's PolicyMatches decides it (with the mesh's MeshHTTPRoutes and
// MeshGateways; a shadow policy is matched as if it took effect).
func (s *Store) policyDataplanes(kind, mesh, name string) Response {
	if _, found := s.find(api.KindMesh, "", mesh); !found {
		return notFound("Failed to retrieve Mesh")
	}
	p, found := s.find(kind, mesh, name)
	if !found {
		return notFound("Could not retrieve policy")
	}
	dps, err := s.focusedPolicies(mesh, s.ofKind(api.KindDataplane, mesh), unshadowed([]kumarules.Policy{p.Policy}))
	if err != nil {
		return internalError("failed inspect")
	}
	out := dataplanesList{Items: []meta{}}
	for _, dp := range dps {
		out.Items = append(out.Items, metaOf(dp.Meta, api.KindDataplane))
	}
	out.Total = len(out.Items)
	return ok(out)
}

// meshServiceDataplanes answers /meshes/{mesh}/meshservices/{name}/_dataplanes: the
// Dataplanes the MeshService selects (by dataplaneRef name, by the tags of an
// inbound, or by labels).
func (s *Store) meshServiceDataplanes(mesh, name string) Response {
	if _, found := s.find(api.KindMesh, "", mesh); !found {
		return notFound("Failed to retrieve Mesh")
	}
	ms, found := s.find(api.KindMeshService, mesh, name)
	if !found {
		return notFound("Could not retrieve policy")
	}
	sel, _ := ms.Spec["selector"].(map[string]any)
	return s.dataplanesWhere(mesh, func(dp object) (bool, error) {
		switch {
		case sel["dataplaneRef"] != nil:
			ref, _ := sel["dataplaneRef"].(map[string]any)
			return str(ref["name"]) == dp.Name, nil
		case sel["dataplaneTags"] != nil:
			tags := stringMap(sel["dataplaneTags"])
			for _, in := range dp.dp.Inbounds {
				if labelsInclude(in.Tags, tags) {
					return true, nil
				}
			}
			return false, nil
		case sel["dataplaneLabels"] != nil:
			l, _ := sel["dataplaneLabels"].(map[string]any)
			return labelsInclude(dp.Labels, stringMap(l["matchLabels"])), nil
		}
		return false, nil
	})
}

// dataplanesWhere lists the Dataplanes of mesh that pass, by name.
func (s *Store) dataplanesWhere(mesh string, pass func(object) (bool, error)) Response {
	out := dataplanesList{Items: []meta{}}
	for _, dp := range s.ofKind(api.KindDataplane, mesh) {
		yes, err := pass(dp)
		if err != nil {
			return internalError("failed inspect")
		}
		if yes {
			out.Items = append(out.Items, metaOf(dp.Meta, api.KindDataplane))
		}
	}
	out.Total = len(out.Items)
	return ok(out)
}

// gatewayRules answers /meshes/{mesh}/meshgateways/{name}/_rules: the rules of a
// builtin gateway proxy with the MeshGateway's first selector as its tags.
func (s *Store) gatewayRules(mesh, name string) Response {
	m, found := s.find(api.KindMesh, "", mesh)
	if !found {
		return notFound("Failed to retrieve Mesh")
	}
	gw, found := s.find(api.KindMeshGateway, mesh, name)
	if !found {
		return notFound("Could not retrieve MeshGateway")
	}
	sels := list(gw.Spec["selectors"])
	if len(sels) == 0 {
		return internalError("Invalid MeshGateway")
	}
	first, _ := sels[0].(map[string]any)
	dp := kumarules.Dataplane{Meta: gw.Meta, Gateway: "BUILTIN", GatewayTags: stringMap(first["match"])}
	return s.rulesFor(m, metaOf(gw.Meta, api.KindMeshGateway), dp)
}
