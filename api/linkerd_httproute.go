package api

// HTTP route types Linkerd reads, shared by its own policy.linkerd.io HTTPRoute and the
// Gateway API HTTPRoute (whose rules are a superset). JSON keys follow the CRDs.

// LinkerdHTTPRouteSpec is policy.linkerd.io HTTPRoute in every served version
// (v1alpha1 to v1beta3): the CRD decides which fields a version has, the rules read
// the ones they check.
type LinkerdHTTPRouteSpec struct {
	ParentRefs []ParentRef            `json:"parentRefs,omitempty"`
	Hostnames  []string               `json:"hostnames,omitempty"`
	Rules      []LinkerdHTTPRouteRule `json:"rules,omitempty"`
}

// LinkerdHTTPRouteRule is one rule of a policy.linkerd.io HTTPRoute.
type LinkerdHTTPRouteRule struct {
	Matches     []HTTPRouteMatch   `json:"matches,omitempty"`
	Filters     []HTTPRouteFilter  `json:"filters,omitempty"`
	BackendRefs Free               `json:"backendRefs,omitempty"`
	Timeouts    *HTTPRouteTimeouts `json:"timeouts,omitempty"`
}

// ParentRef is a route's parent: a Linkerd Server, an EgressNetwork, a Service or a
// gateway. No group means the core group (a Service), as Linkerd reads it.
type ParentRef struct {
	Group       *string `json:"group,omitempty"`
	Kind        *string `json:"kind,omitempty"`
	Name        string  `json:"name,omitempty"`
	Namespace   string  `json:"namespace,omitempty"`
	Port        *int64  `json:"port,omitempty"`
	SectionName string  `json:"sectionName,omitempty"`
}

// HTTPRouteMatch is one request match of an HTTP route rule.
type HTTPRouteMatch struct {
	Path        *RouteHTTPPathMatch `json:"path,omitempty"`
	Headers     []HTTPValueMatch    `json:"headers,omitempty"`
	QueryParams []HTTPValueMatch    `json:"queryParams,omitempty"`
	Method      string              `json:"method,omitempty"`
}

// RouteHTTPPathMatch matches the request path: Exact, PathPrefix (the default) or
// RegularExpression.
type RouteHTTPPathMatch struct {
	Type  string  `json:"type,omitempty"`
	Value *string `json:"value,omitempty"`
}

// HTTPValueMatch matches a header or query parameter by name: Exact (the default) or
// RegularExpression.
type HTTPValueMatch struct {
	Type  string `json:"type,omitempty"`
	Name  string `json:"name"`
	Value string `json:"value"`
}

// HTTPRouteFilter is one filter of an HTTP route rule; the kinds Linkerd does not
// implement stay free-form (it admits and ignores them).
type HTTPRouteFilter struct {
	Type                   string                   `json:"type,omitempty"`
	RequestHeaderModifier  *RouteHTTPHeaderModifier `json:"requestHeaderModifier,omitempty"`
	ResponseHeaderModifier *RouteHTTPHeaderModifier `json:"responseHeaderModifier,omitempty"`
	RequestRedirect        *HTTPRequestRedirect     `json:"requestRedirect,omitempty"`
	RequestMirror          Free                     `json:"requestMirror,omitempty"`
	URLRewrite             Free                     `json:"urlRewrite,omitempty"`
	ExtensionRef           Free                     `json:"extensionRef,omitempty"`
	CORS                   Free                     `json:"cors,omitempty"`
	ExternalAuth           Free                     `json:"externalAuth,omitempty"`
}

// RouteHTTPHeaderModifier adds, sets and removes headers.
type RouteHTTPHeaderModifier struct {
	Add    []HTTPHeader `json:"add,omitempty"`
	Set    []HTTPHeader `json:"set,omitempty"`
	Remove []string     `json:"remove,omitempty"`
}

// HTTPHeader is a header name and value.
type HTTPHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// HTTPRequestRedirect answers a request with a redirect.
type HTTPRequestRedirect struct {
	Scheme     string            `json:"scheme,omitempty"`
	Hostname   string            `json:"hostname,omitempty"`
	Path       *HTTPPathModifier `json:"path,omitempty"`
	Port       *int64            `json:"port,omitempty"`
	StatusCode *int64            `json:"statusCode,omitempty"`
}

// HTTPPathModifier replaces the whole path or the matched prefix.
type HTTPPathModifier struct {
	Type               string  `json:"type,omitempty"`
	ReplaceFullPath    *string `json:"replaceFullPath,omitempty"`
	ReplacePrefixMatch *string `json:"replacePrefixMatch,omitempty"`
}

// HTTPRouteTimeouts are a rule's request and backend request timeouts (durations).
type HTTPRouteTimeouts struct {
	Request        *string `json:"request,omitempty"`
	BackendRequest *string `json:"backendRequest,omitempty"`
}
