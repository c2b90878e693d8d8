package validate

// Codes of Kuma's validators for the gateway, identity and data plane resources
// (issue 15): one per kind.
const (
	CodeMeshGateway         = "MG180"
	CodeMeshGatewayRoute    = "MG181"
	CodeMeshIdentity        = "MG182"
	CodeMeshTrust           = "MG183"
	CodeMeshGatewayInstance = "MG184"
	CodeMeshGatewayConfig   = "MG185"
	CodeDataplane           = "MG186"
)
