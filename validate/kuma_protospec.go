package validate

import "github.com/meshguard/meshguard/api"

// protoSpecCode returns the finding code of a kind whose spec is one of Kuma's proto
// messages as JSON (Mesh, MeshGateway, MeshGatewayRoute, Dataplane): their CRDs keep
// spec unchecked, so the decoder is the first to see a wrong type or an unknown
// field, and Kuma's own decoder refuses the one and ignores the other.
func protoSpecCode(spec any) (string, bool) {
	switch spec.(type) {
	case *api.MeshSpec:
		return CodeMesh, true
	case *api.MeshGatewaySpec:
		return CodeMeshGateway, true
	case *api.MeshGatewayRouteSpec:
		return CodeMeshGatewayRoute, true
	case *api.DataplaneSpec:
		return CodeDataplane, true
	}
	return "", false
}
