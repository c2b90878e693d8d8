package validate

import "testing"

// httpRoute builds a MeshHTTPRoute spec towards MeshService backend with one rule.
func httpRouteSpec(top, to, rule string) string {
	return "  targetRef: " + top + "\n  to:\n    - targetRef: " + to + "\n      rules:\n        - " + rule
}

// TestHTTPRouteContents covers Kuma's meshhttproute validator, one valid and one
// invalid manifest per rule.
func TestHTTPRouteContents(t *testing.T) {
	const mesh, svc, gw = "{kind: Mesh}", "{kind: MeshService, name: backend}", "{kind: MeshGateway, name: edge}"
	back := "backendRefs: [{kind: MeshService, name: backend}]"
	r := func(matches, def string) string { return "{matches: [" + matches + "], default: {" + def + "}}" }
	rp := "spec.to[0].rules[0]"
	runShared(t, []sharedCase{
		{"valid", "MeshHTTPRoute", httpRouteSpec(mesh, svc, r("{path: {type: PathPrefix, value: /api}}", back)), nil},
		{"relative path", "MeshHTTPRoute", httpRouteSpec(mesh, svc, r("{path: {type: Exact, value: api}}", back)),
			[]got{e(CodeHTTPRoute, rp+".matches[0].path.value")}},
		{"prefix with trailing slash", "MeshHTTPRoute", httpRouteSpec(mesh, svc, r("{path: {type: PathPrefix, value: /api/}}", back)),
			[]got{e(CodeHTTPRoute, rp+".matches[0].path.value")}},
		{"repeated query parameter", "MeshHTTPRoute", httpRouteSpec(mesh, svc, r("{queryParams: [{type: Exact, name: a, value: v1}, {type: Exact, name: a, value: v2}]}", back)),
			[]got{e(CodeHTTPRoute, rp+".matches[0].queryParams[1].name")}},
		{"present header with a value", "MeshHTTPRoute", httpRouteSpec(mesh, svc, r("{headers: [{type: Present, name: x, value: v}]}", back)),
			[]got{e(CodeHTTPRoute, rp+".matches[0].headers[0].value")}},
		{"filter without its settings", "MeshHTTPRoute", httpRouteSpec(mesh, svc, r("", "filters: [{type: URLRewrite}], "+back)),
			[]got{e(CodeHTTPRoute, rp+".default.filters[0].urlRewrite")}},
		{"empty header modifier", "MeshHTTPRoute", httpRouteSpec(mesh, svc, r("", "filters: [{type: RequestHeaderModifier, requestHeaderModifier: {}}], "+back)),
			[]got{e(CodeHTTPRoute, rp+".default.filters[0].requestHeaderModifier")}},
		{"header modified twice", "MeshHTTPRoute", httpRouteSpec(mesh, svc, r("", "filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: a, value: b}], remove: [a]}}], "+back)),
			[]got{e(CodeHTTPRoute, rp+".default.filters[0].requestHeaderModifier.remove[0]")}},
		{"prefix rewrite with a prefix match", "MeshHTTPRoute", httpRouteSpec(mesh, svc, r("{path: {type: PathPrefix, value: /a}}", "filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /b}}}], "+back)), nil},
		{"prefix rewrite with an exact match", "MeshHTTPRoute", httpRouteSpec(mesh, svc, r("{path: {type: Exact, value: /a}}", "filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /b}}}], "+back)),
			[]got{e(CodeHTTPRoute, rp+".default.filters[0].urlRewrite.path.replacePrefixMatch")}},
		{"redirect to an IP", "MeshHTTPRoute", httpRouteSpec(mesh, svc, r("", "filters: [{type: RequestRedirect, requestRedirect: {hostname: 10.0.0.1}}]")),
			[]got{e(CodeHTTPRoute, rp+".default.filters[0].requestRedirect.hostname")}},
		{"hostToBackendHostname between services", "MeshHTTPRoute", httpRouteSpec(mesh, svc, r("", "filters: [{type: URLRewrite, urlRewrite: {hostToBackendHostname: true}}], "+back)),
			[]got{e(CodeHTTPRoute, rp+".default.filters[0].urlRewrite.hostToBackendHostname")}},
		{"hostnames between services", "MeshHTTPRoute", "  to:\n    - targetRef: " + svc + "\n      hostnames: [a.com]\n      rules: [" + r("", back) + "]",
			[]got{e(CodeHTTPRoute, "spec.to[0].hostnames")}},
		{"hostnames on a gateway", "MeshHTTPRoute", "  targetRef: " + gw + "\n  to:\n    - targetRef: " + mesh + "\n      hostnames: [a.com]\n      rules: [" + r("", back) + "]", nil},
		{"gateway rule without backends", "MeshHTTPRoute", httpRouteSpec(gw, mesh, r("", "filters: []")),
			[]got{e(CodeHTTPRoute, rp+".default.backendRefs")}},
		{"gateway redirect without backends", "MeshHTTPRoute", httpRouteSpec(gw, mesh, r("", "filters: [{type: RequestRedirect, requestRedirect: {statusCode: 301}}]")), nil},
		{"mirror to an external service", "MeshHTTPRoute", httpRouteSpec(mesh, svc, r("", "filters: [{type: RequestMirror, requestMirror: {backendRef: {kind: MeshExternalService, name: x}}}], "+back)),
			[]got{e(CodeBackendKind, rp+".default.filters[0].requestMirror.backendRef.kind")}},
		{"unresolved backend", "MeshHTTPRoute", httpRouteSpec(mesh, svc, r("", "backendRefs: [{kind: MeshService, name: kuma.io/unresolved-backend}]")), nil},
		{"no destinations", "MeshHTTPRoute", "  targetRef: " + mesh + "\n  to: []", []got{w(CodeNoEffect, "spec.to")}},
	})
}

// TestTCPRouteContents covers Kuma's meshtcproute validator.
func TestTCPRouteContents(t *testing.T) {
	spec := func(def string) string {
		return "  to:\n    - targetRef: {kind: MeshService, name: backend}\n      rules: [{default: {" + def + "}}]"
	}
	runShared(t, []sharedCase{
		{"valid", "MeshTCPRoute", spec("backendRefs: [{kind: MeshService, name: backend, port: 80}]"), nil},
		{"backend port by sectionName", "MeshTCPRoute", spec("backendRefs: [{kind: MeshService, name: backend, sectionName: db}]"), nil},
		{"sectionName on a MeshServiceSubset backend", "MeshTCPRoute", spec("backendRefs: [{kind: MeshServiceSubset, name: backend, sectionName: db}]"),
			[]got{e(CodeRefField, "spec.to[0].rules[0].default.backendRefs[0].sectionName")}},
		{"no backends", "MeshTCPRoute", spec(""), []got{e(CodeTCPRoute, "spec.to[0].rules[0].default.backendRefs")}},
		{"port out of range", "MeshTCPRoute", spec("backendRefs: [{kind: MeshService, name: backend, port: 70000}]"),
			[]got{w(CodeNoEffect, "spec.to[0].rules[0].default.backendRefs[0].port")}},
	})
}
