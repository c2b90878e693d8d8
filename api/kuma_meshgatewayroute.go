package api

// MeshGatewayRouteSpec is the spec of a MeshGatewayRoute (deprecated in favour of
// MeshHTTPRoute and MeshTCPRoute): Kuma's proto MeshGatewayRoute message as JSON,
// unchecked by its CRD and decoded by Kuma with unknown fields ignored.
type MeshGatewayRouteSpec struct {
	Selectors []KumaSelector        `json:"selectors,omitempty"`
	Conf      *MeshGatewayRouteConf `json:"conf,omitempty"`
}

// MeshGatewayRouteConf is the route itself: TCP or HTTP (a proto oneof).
type MeshGatewayRouteConf struct {
	TCP  *GatewayTCPRoute  `json:"tcp,omitempty"`
	HTTP *GatewayHTTPRoute `json:"http,omitempty"`
}

// GatewayTCPRoute forwards a gateway's TCP traffic to backends.
type GatewayTCPRoute struct {
	Rules []GatewayTCPRule `json:"rules,omitempty"`
}

// GatewayTCPRule is one TCP rule: its weighted backends.
type GatewayTCPRule struct {
	Backends []GatewayBackend `json:"backends,omitempty"`
}

// GatewayBackend is a weighted destination, selected by tags (kuma.io/service).
type GatewayBackend struct {
	Weight      *uint32           `json:"weight,omitempty"`
	Destination map[string]string `json:"destination,omitempty"`
}

// GatewayHTTPRoute is an HTTP route: the hostnames it serves and its rules.
type GatewayHTTPRoute struct {
	Hostnames []string          `json:"hostnames,omitempty"`
	Rules     []GatewayHTTPRule `json:"rules,omitempty"`
}

// GatewayHTTPRule matches requests, filters them and forwards them to backends.
type GatewayHTTPRule struct {
	Matches  []GatewayHTTPMatch  `json:"matches,omitempty"`
	Filters  []GatewayHTTPFilter `json:"filters,omitempty"`
	Backends []GatewayBackend    `json:"backends,omitempty"`
}

// GatewayHTTPMatch is one way a request matches: path, method, headers, query.
type GatewayHTTPMatch struct {
	Path            *GatewayPathMatch   `json:"path,omitempty"`
	Method          ProtoEnum           `json:"method,omitempty"`
	Headers         []GatewayValueMatch `json:"headers,omitempty"`
	QueryParameters []GatewayValueMatch `json:"queryParameters,omitempty"`
}

// GatewayPathMatch matches the path exactly, by prefix or by regex.
type GatewayPathMatch struct {
	Match ProtoEnum `json:"match,omitempty"`
	Value string    `json:"value,omitempty"`
}

// GatewayValueMatch matches a header or query parameter by name and value.
type GatewayValueMatch struct {
	Match ProtoEnum `json:"match,omitempty"`
	Name  string    `json:"name,omitempty"`
	Value string    `json:"value,omitempty"`
}

// GatewayHTTPFilter is one filter of a rule (a proto oneof: exactly one is set).
type GatewayHTTPFilter struct {
	RequestHeader  *GatewayHeaderFilter `json:"requestHeader,omitempty"`
	Mirror         *GatewayMirror       `json:"mirror,omitempty"`
	Redirect       *GatewayRedirect     `json:"redirect,omitempty"`
	Rewrite        *GatewayRewrite      `json:"rewrite,omitempty"`
	ResponseHeader *GatewayHeaderFilter `json:"responseHeader,omitempty"`
}

// GatewayHeaderFilter sets, adds or removes headers.
type GatewayHeaderFilter struct {
	Set    []GatewayHeader `json:"set,omitempty"`
	Add    []GatewayHeader `json:"add,omitempty"`
	Remove []string        `json:"remove,omitempty"`
}

// GatewayHeader is a header name and value.
type GatewayHeader struct {
	Name  string `json:"name,omitempty"`
	Value string `json:"value,omitempty"`
}

// GatewayMirror sends a percentage of requests to a second backend too.
type GatewayMirror struct {
	Backend    *GatewayBackend `json:"backend,omitempty"`
	Percentage *float64        `json:"percentage,omitempty"`
}

// GatewayRedirect answers with a redirect instead of forwarding.
type GatewayRedirect struct {
	Scheme     string          `json:"scheme,omitempty"`
	Hostname   string          `json:"hostname,omitempty"`
	Port       uint32          `json:"port,omitempty"`
	StatusCode uint32          `json:"statusCode,omitempty"`
	Path       *GatewayRewrite `json:"path,omitempty"`
}

// GatewayRewrite rewrites the path (fully or its matched prefix, a proto oneof) or the
// host.
type GatewayRewrite struct {
	ReplaceFull           *string `json:"replaceFull,omitempty"`
	ReplacePrefixMatch    *string `json:"replacePrefixMatch,omitempty"`
	HostToBackendHostname bool    `json:"hostToBackendHostname,omitempty"`
}

// GatewayPathMatchTypes are the path match types of Kuma's proto, by number.
func GatewayPathMatchTypes() ProtoEnumNames { return ProtoEnumNames{"EXACT", "PREFIX", "REGEX"} }

// GatewayHeaderMatchTypes are the header match types of Kuma's proto, by number.
func GatewayHeaderMatchTypes() ProtoEnumNames {
	return ProtoEnumNames{"EXACT", "REGEX", "ABSENT", "PRESENT"}
}

// GatewayQueryMatchTypes are the query parameter match types of Kuma's proto.
func GatewayQueryMatchTypes() ProtoEnumNames { return ProtoEnumNames{"EXACT", "REGEX"} }

// HTTPMethods are the HTTP methods of Kuma's proto, by number (NONE: any).
func HTTPMethods() ProtoEnumNames {
	return ProtoEnumNames{"NONE", "CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE"}
}
