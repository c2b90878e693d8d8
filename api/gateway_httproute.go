package api

// GatewayHTTPRouteSpec is gateway.networking.k8s.io HTTPRoute (v1 and v1beta1), as far
// as Linkerd reads it.
type GatewayHTTPRouteSpec struct {
	ParentRefs []ParentRef            `json:"parentRefs,omitempty"`
	Hostnames  []string               `json:"hostnames,omitempty"`
	Rules      []GatewayHTTPRouteRule `json:"rules,omitempty"`
}

// GatewayHTTPRouteRule is one rule of a Gateway API HTTPRoute.
type GatewayHTTPRouteRule struct {
	Name               string              `json:"name,omitempty"`
	Matches            []HTTPRouteMatch    `json:"matches,omitempty"`
	Filters            []HTTPRouteFilter   `json:"filters,omitempty"`
	BackendRefs        []GatewayBackendRef `json:"backendRefs,omitempty"`
	Timeouts           *HTTPRouteTimeouts  `json:"timeouts,omitempty"`
	Retry              Free                `json:"retry,omitempty"`
	SessionPersistence Free                `json:"sessionPersistence,omitempty"`
}

// GatewayBackendRef is a Gateway API route backend; no group and no kind mean a core Service, which
// needs a port.
type GatewayBackendRef struct {
	Group     *string `json:"group,omitempty"`
	Kind      *string `json:"kind,omitempty"`
	Name      string  `json:"name,omitempty"`
	Namespace string  `json:"namespace,omitempty"`
	Port      *int64  `json:"port,omitempty"`
	Weight    *int64  `json:"weight,omitempty"`
	Filters   Free    `json:"filters,omitempty"`
}
