package api

// GatewayTLSRouteSpec is gateway.networking.k8s.io TLSRoute (v1alpha2, v1alpha3 and v1:
// the fields Linkerd reads are the same in each).
type GatewayTLSRouteSpec struct {
	ParentRefs []ParentRef `json:"parentRefs,omitempty"`
	Hostnames  []string    `json:"hostnames,omitempty"`
	Rules      []L4Rule    `json:"rules,omitempty"`
}
