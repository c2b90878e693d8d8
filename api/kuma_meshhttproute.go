package api

// MeshHTTPRouteSpec is a MeshHTTPRoute: routes for the proxies of targetRef towards
// the services of to[].targetRef. The types follow Kuma 2.14's meshhttproute API.
type MeshHTTPRouteSpec struct {
	TargetRef *TargetRef    `json:"targetRef,omitempty"`
	To        []HTTPRouteTo `json:"to,omitempty"`
}

// HTTPRouteTo is one destination of a MeshHTTPRoute with its rules; hostnames
// only apply to routes on a MeshGateway.
type HTTPRouteTo struct {
	TargetRef *TargetRef      `json:"targetRef,omitempty"`
	Hostnames []string        `json:"hostnames,omitempty"`
	Rules     []HTTPRouteRule `json:"rules,omitempty"`
}

// HTTPRouteRule is one match/default pair of a MeshHTTPRoute.
type HTTPRouteRule struct {
	Matches []HTTPMatch   `json:"matches,omitempty"`
	Default HTTPRouteConf `json:"default"`
}

// HTTPMatch is a request match of a MeshHTTPRoute.
type HTTPMatch struct {
	Path        *HTTPPathMatch    `json:"path,omitempty"`
	Method      string            `json:"method,omitempty"`
	QueryParams []HTTPQueryMatch  `json:"queryParams,omitempty"`
	Headers     []HTTPHeaderMatch `json:"headers,omitempty"`
}

// HTTPPathMatch matches the request path: Exact, PathPrefix or RegularExpression.
type HTTPPathMatch struct {
	Type  string `json:"type,omitempty"`
	Value string `json:"value,omitempty"`
}

// HTTPQueryMatch matches one query parameter.
type HTTPQueryMatch struct {
	Type  string `json:"type,omitempty"`
	Name  string `json:"name,omitempty"`
	Value string `json:"value,omitempty"`
}

// HTTPHeaderMatch matches one request header; Type nil is Exact.
type HTTPHeaderMatch struct {
	Type  *string `json:"type,omitempty"`
	Name  string  `json:"name,omitempty"`
	Value string  `json:"value,omitempty"`
}

// HTTPRouteConf is what a matching request gets: filters and backends.
type HTTPRouteConf struct {
	Filters     []HTTPFilter  `json:"filters,omitempty"`
	BackendRefs *[]BackendRef `json:"backendRefs,omitempty"`
}

// HTTPFilter is a MeshHTTPRoute filter: Type names the one of the other fields it
// needs.
type HTTPFilter struct {
	Type                   string              `json:"type,omitempty"`
	RequestHeaderModifier  *HTTPHeaderModifier `json:"requestHeaderModifier,omitempty"`
	ResponseHeaderModifier *HTTPHeaderModifier `json:"responseHeaderModifier,omitempty"`
	RequestRedirect        *HTTPRedirect       `json:"requestRedirect,omitempty"`
	URLRewrite             *HTTPURLRewrite     `json:"urlRewrite,omitempty"`
	RequestMirror          *RequestMirror      `json:"requestMirror,omitempty"`
}

// HTTPHeaderModifier sets, adds and removes headers; pointers tell an absent list
// from an empty one.
type HTTPHeaderModifier struct {
	Set    *[]HTTPHeaderValue `json:"set,omitempty"`
	Add    *[]HTTPHeaderValue `json:"add,omitempty"`
	Remove *[]string          `json:"remove,omitempty"`
}

// HTTPHeaderValue is one header name and value.
type HTTPHeaderValue struct {
	Name  string `json:"name,omitempty"`
	Value string `json:"value,omitempty"`
}

// HTTPRedirect answers with a redirect instead of forwarding.
type HTTPRedirect struct {
	Scheme     *string          `json:"scheme,omitempty"`
	Hostname   *string          `json:"hostname,omitempty"`
	Path       *HTTPPathRewrite `json:"path,omitempty"`
	Port       *int64           `json:"port,omitempty"`
	StatusCode *int64           `json:"statusCode,omitempty"`
}

// HTTPPathRewrite replaces the full path or the matched prefix.
type HTTPPathRewrite struct {
	Type               string  `json:"type,omitempty"`
	ReplaceFullPath    *string `json:"replaceFullPath,omitempty"`
	ReplacePrefixMatch *string `json:"replacePrefixMatch,omitempty"`
}

// HTTPURLRewrite rewrites the host and path before forwarding.
type HTTPURLRewrite struct {
	Hostname              *string          `json:"hostname,omitempty"`
	Path                  *HTTPPathRewrite `json:"path,omitempty"`
	HostToBackendHostname *bool            `json:"hostToBackendHostname,omitempty"`
}

// RequestMirror mirrors requests to a backend. Percentage (int or string) is the
// CRD's business; Kuma's validator does not read it.
type RequestMirror struct {
	BackendRef *BackendRef `json:"backendRef,omitempty"`
	Percentage Free        `json:"percentage,omitempty"`
}
