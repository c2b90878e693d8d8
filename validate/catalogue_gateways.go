package validate

// Codes of Kuma's validators for the gateway and identity resources (issue 15): one
// per kind.
const (
	CodeMeshGateway      = "MG180"
	CodeMeshGatewayRoute = "MG181"
	CodeMeshIdentity     = "MG182"
	CodeMeshTrust        = "MG183"
	// CodeMeshGatewayInstance is Kuma's MeshGatewayInstance webhook (tags; no
	// creation on a global control plane).
	CodeMeshGatewayInstance = "MG184"
	// CodeDataplane is Kuma's Dataplane validator.
	CodeDataplane = "MG186"
)
