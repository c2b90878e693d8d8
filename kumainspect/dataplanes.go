package kumainspect

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumarules"
)

// dataplanesList is the body of …/_resources/dataplanes and meshservices/…/_dataplanes
// (InspectDataplanesForPolicy).
type dataplanesList struct {
	Items []meta `json:"items"`
	Total int    `json:"total"`
	// Next is the next page's path and query when more items match; Kuma
	// writes it as an absolute URL of the request's host, which an offline
	// answer has not.
	Next *string `json:"next,omitempty"`
}

// legacyDataplanes answers …/_resources/dataplanes for a policy of the old
// model: the Dataplanes whose inbound tags (or, for a gateway, its tags) one of
// its selectors matches, as Kuma's Dataplane.Matches decides it.
func (s *Store) legacyDataplanes(kind string, connection bool, mesh, name string, q url.Values) Response {
	if _, found := s.find(api.KindMesh, "", mesh); !found {
		return notFound("Failed to retrieve Mesh")
	}
	p, found := s.find(kind, mesh, name)
	if !found {
		return notFound("Could not retrieve policy")
	}
	var sels []map[string]string
	fields := []string{"selectors"}
	if connection {
		fields = []string{"sources", "destinations"}
	}
	for _, f := range fields {
		for _, sel := range list(p.Spec[f]) {
			m, _ := sel.(map[string]any)
			sels = append(sels, stringMap(m["match"]))
		}
	}
	return s.dataplanesWhere(mesh, q, func(dp object) (bool, error) {
		for _, sel := range sels {
			for _, in := range dp.dp.Inbounds {
				if tagsMatch(sel, in.Tags) {
					return true, nil
				}
			}
			if tagsMatch(sel, dp.dp.GatewayTags) {
				return true, nil
			}
		}
		return false, nil
	})
}

// tagsMatch is Kuma's TagSelector.Matches: every tag of sel is in tags with the
// same value, or with any value where sel says "*".
func tagsMatch(sel, tags map[string]string) bool {
	for k, v := range sel {
		got, ok := tags[k]
		if !ok || (v != got && v != "*") {
			return false
		}
	}
	return true
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
func (s *Store) policyDataplanes(kind, mesh, name string, q url.Values) Response {
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
	return s.dataplanesPage(dps, q)
}

// meshServiceDataplanes answers /meshes/{mesh}/meshservices/{name}/_dataplanes: the
// Dataplanes the MeshService selects (by dataplaneRef name, by the tags of an
// inbound, or by labels).
func (s *Store) meshServiceDataplanes(mesh, name string, q url.Values) Response {
	if _, found := s.find(api.KindMesh, "", mesh); !found {
		return notFound("Failed to retrieve Mesh")
	}
	ms, found := s.find(api.KindMeshService, mesh, name)
	if !found {
		return notFound("Could not retrieve policy")
	}
	sel, _ := ms.Spec["selector"].(map[string]any)
	return s.dataplanesWhere(mesh, q, func(dp object) (bool, error) {
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
func (s *Store) dataplanesWhere(mesh string, q url.Values, pass func(object) (bool, error)) Response {
	var dps []object
	for _, dp := range s.ofKind(api.KindDataplane, mesh) {
		yes, err := pass(dp)
		if err != nil {
			return internalError("failed inspect")
		}
		if yes {
			dps = append(dps, dp)
		}
	}
	return s.dataplanesPage(dps, q)
}

// dataplanesPage is one page of dps as Kuma's list answers it: those whose name
// contains the query's `name`, from `offset` (default 0), at most `size`
// (default 100, at most 1000); Total counts every one that passed.
func (s *Store) dataplanesPage(dps []object, q url.Values) Response {
	size, offset := defaultPageSize, 0
	if v := q.Get("size"); v != "" {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil:
			return badRequest("invalid page size: invalid format")
		case n <= 0:
			return badRequest("invalid page size: must be greater than 0")
		case n > maxPageSize:
			return badRequest(fmt.Sprintf("invalid page size of %d. Maximum page size is %d", n, maxPageSize))
		}
		size = n
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return badRequest("invalid offset")
		}
		offset = n
	}
	out := dataplanesList{Items: []meta{}}
	var matched []object
	for _, dp := range dps {
		if strings.Contains(dp.Name, q.Get("name")) {
			matched = append(matched, dp)
		}
	}
	out.Total = len(matched)
	for i := offset; i < len(matched) && i < offset+size; i++ {
		out.Items = append(out.Items, metaOf(matched[i].Meta, api.KindDataplane))
	}
	if offset+size < len(matched) {
		next := url.Values{}
		for k, v := range q {
			next[k] = v
		}
		next.Set("offset", strconv.Itoa(offset+size))
		link := "?" + next.Encode()
		out.Next = &link
	}
	return ok(out)
}

// The page sizes of Kuma's lists (pkg/api-server/pagination.go).
const (
	defaultPageSize = 100
	maxPageSize     = 1000
)

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
	dp := kumarules.Dataplane{Meta: gw.Meta, Gateway: gatewayBuiltin, GatewayTags: stringMap(first["match"])}
	return s.rulesFor(m, metaOf(gw.Meta, api.KindMeshGateway), dp)
}
