package api

// GatewayTCPRouteSpec is gateway.networking.k8s.io/v1alpha2 TCPRoute.
type GatewayTCPRouteSpec struct {
	ParentRefs []ParentRef `json:"parentRefs,omitempty"`
	Rules      []L4Rule    `json:"rules,omitempty"`
}

// L4Rule is a TCPRoute or TLSRoute rule: backends only.
type L4Rule struct {
	Name        string              `json:"name,omitempty"`
	BackendRefs []GatewayBackendRef `json:"backendRefs,omitempty"`
}
