package kumainspect

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/meshguard/meshguard/api"
)

// Get answers `GET path` (a path with an optional query, as in
// /meshes/default/dataplanes/dp-1/_rules) as Kuma 2.14's API server would over the
// store's objects. A path that is not one of the inspect endpoints gets 404.
func (s *Store) Get(path string) Response {
	p, rawQuery, _ := strings.Cut(path, "?")
	query, err := url.ParseQuery(rawQuery)
	if err != nil {
		return badRequest(err.Error())
	}
	var seg []string
	for _, part := range strings.Split(strings.Trim(p, "/"), "/") {
		v, err := url.PathUnescape(part)
		if err != nil {
			return unknownPath(path)
		}
		seg = append(seg, v)
	}
	if len(seg) < 5 || seg[0] != "meshes" {
		return unknownPath(path)
	}
	mesh, collection, name, rest := seg[1], seg[2], seg[3], seg[4:]
	switch collection {
	case "dataplanes":
		if r, handled := s.dataplaneEndpoint(mesh, name, rest, query); handled {
			return r
		}
	case "meshgateways":
		if len(rest) == 1 && rest[0] == "_rules" {
			return s.gatewayRules(mesh, name)
		}
	case "meshservices":
		if (len(rest) == 1 && rest[0] == "_dataplanes") || (len(rest) == 2 && rest[0] == "_resources" && rest[1] == "dataplanes") {
			return s.meshServiceDataplanes(mesh, name, query) // the second is Kuma's older path
		}
	}
	if len(rest) == 1 && rest[0] == "_hostnames" {
		return s.hostnames(collection, mesh, name)
	}
	if len(rest) == 2 && rest[0] == "_resources" && rest[1] == "dataplanes" {
		if kind, found := s.policyByPlural(collection); found {
			return s.policyDataplanes(kind, mesh, name, query)
		}
		for _, l := range api.LegacyKumaPolicies() {
			if l.Plural == collection {
				return s.legacyDataplanes(l.Kind, l.Connection, mesh, name, query)
			}
		}
	}
	return unknownPath(path)
}

// dataplaneEndpoint routes the endpoints under /meshes/{mesh}/dataplanes/{name}/.
func (s *Store) dataplaneEndpoint(mesh, name string, rest []string, query url.Values) (Response, bool) {
	switch {
	case len(rest) == 1 && rest[0] == "_rules":
		return s.dataplaneRules(mesh, name), true
	case len(rest) == 1 && rest[0] == "_policies":
		return s.proxyPolicies(mesh, name), true
	case len(rest) == 1 && rest[0] == "_layout":
		return s.layout(mesh, name), true
	case len(rest) == 1 && rest[0] == "_config":
		return s.config(mesh, name, query), true
	case len(rest) == 3 && rest[0] == "_inbounds" && rest[2] == "_policies":
		return s.inboundPolicies(mesh, name, rest[1]), true
	case len(rest) == 3 && rest[0] == "_outbounds" && rest[2] == "_policies":
		return s.outboundPolicies(mesh, name, rest[1]), true
	case len(rest) == 3 && rest[0] == "_outbounds" && rest[2] == "_routes":
		return s.outboundRoutes(mesh, name, rest[1]), true
	case len(rest) == 5 && rest[0] == "_outbounds" && rest[2] == "_routes" && rest[4] == "_policies":
		return s.routePolicies(mesh, name, rest[1], rest[3]), true
	}
	return Response{}, false
}

// unknownPath is meshguard's answer to a path that is none of the inspect
// endpoints (Kuma's router answers such a path with a plain-text 404).
func unknownPath(path string) Response {
	return errorResponse(http.StatusNotFound, "Not Found", "not an inspect endpoint of Kuma 2.14: "+path)
}
