package api

// MeshTCPRouteSpec is a MeshTCPRoute: TCP backends for the proxies of targetRef
// towards the services of to[].targetRef.
type MeshTCPRouteSpec struct {
	TargetRef *TargetRef   `json:"targetRef,omitempty"`
	To        []TCPRouteTo `json:"to,omitempty"`
}

// TCPRouteTo is one destination of a MeshTCPRoute.
type TCPRouteTo struct {
	TargetRef *TargetRef     `json:"targetRef,omitempty"`
	Rules     []TCPRouteRule `json:"rules,omitempty"`
}

// TCPRouteRule holds the backends of a MeshTCPRoute destination.
type TCPRouteRule struct {
	Default TCPRouteConf `json:"default"`
}

// TCPRouteConf lists the backends of a MeshTCPRoute rule.
type TCPRouteConf struct {
	BackendRefs []BackendRef `json:"backendRefs,omitempty"`
}
