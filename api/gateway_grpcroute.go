package api

// GatewayGRPCRouteSpec is gateway.networking.k8s.io GRPCRoute (v1 and v1alpha2).
type GatewayGRPCRouteSpec struct {
	ParentRefs []ParentRef            `json:"parentRefs,omitempty"`
	Hostnames  []string               `json:"hostnames,omitempty"`
	Rules      []GatewayGRPCRouteRule `json:"rules,omitempty"`
}

// GatewayGRPCRouteRule is one rule of a GRPCRoute.
type GatewayGRPCRouteRule struct {
	Name               string              `json:"name,omitempty"`
	Matches            []GRPCRouteMatch    `json:"matches,omitempty"`
	Filters            []HTTPRouteFilter   `json:"filters,omitempty"`
	BackendRefs        []GatewayBackendRef `json:"backendRefs,omitempty"`
	SessionPersistence Free                `json:"sessionPersistence,omitempty"`
}

// GRPCRouteMatch matches a gRPC method and headers.
type GRPCRouteMatch struct {
	Method  *GRPCMethodMatch `json:"method,omitempty"`
	Headers []HTTPValueMatch `json:"headers,omitempty"`
}

// GRPCMethodMatch matches a service and method, Exact (the default) or
// RegularExpression, which Linkerd does not support.
type GRPCMethodMatch struct {
	Type    string `json:"type,omitempty"`
	Service string `json:"service,omitempty"`
	Method  string `json:"method,omitempty"`
}
