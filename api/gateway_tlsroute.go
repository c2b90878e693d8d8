package api

// GatewayTLSRouteSpec is gateway.networking.k8s.io/v1alpha2 TLSRoute.
type GatewayTLSRouteSpec struct {
	ParentRefs []ParentRef `json:"parentRefs,omitempty"`
	Hostnames  []string    `json:"hostnames,omitempty"`
	Rules      []L4Rule    `json:"rules,omitempty"`
}
