package validate

import "testing"

// gwr is a MeshGatewayRoute with the good selector and these http rule lines.
func gwr(rules string) string {
	return topMesh(res("MeshGatewayRoute", "r", "", gwSel+"  conf:\n    http:\n      rules:\n"+rules))
}

const (
	gwrMatch   = "        - matches:\n            - path:\n                match: PREFIX\n                value: /api\n"
	gwrBackend = "          backends:\n            - weight: 1\n              destination:\n                kuma.io/service: api\n"
)

func TestMeshGatewayRouteRules(t *testing.T) {
	const rp = "spec.conf.http.rules[0]"
	runResourceCases(t, []resourceCase{
		{name: "valid", doc: gwr(gwrMatch + gwrBackend)},
		{name: "valid snake_case proto names", doc: gwr("        - matches:\n            - query_parameters:\n                - name: a\n                  value: b\n          filters:\n            - redirect:\n                status_code: 301\n")},
		{name: "valid tcp", doc: topMesh(res("MeshGatewayRoute", "r", "", gwSel+"  conf:\n    tcp:\n      rules:\n        - backends:\n            - destination:\n                kuma.io/service: db\n"))},
		{name: "valid prefix rewrite", doc: gwr(gwrMatch + "          filters:\n            - rewrite:\n                replacePrefixMatch: /\n" + gwrBackend)},
		{name: "valid host rewrite beside other header", doc: gwr(gwrMatch + "          filters:\n            - rewrite:\n                hostToBackendHostname: true\n            - requestHeader:\n                set:\n                  - name: x-a\n                    value: b\n" + gwrBackend)},
		{name: "no selectors", doc: topMesh(res("MeshGatewayRoute", "r", "", "  conf:\n    http:\n      rules:\n"+gwrMatch+gwrBackend)), want: []got{e(CodeMeshGatewayRoute, "spec.selectors")}},
		{name: "no conf", doc: topMesh(res("MeshGatewayRoute", "r", "", gwSel)), want: []got{e(CodeMeshGatewayRoute, "spec.conf")}},
		{name: "tcp and http", doc: topMesh(res("MeshGatewayRoute", "r", "", gwSel+"  conf:\n    tcp: {}\n    http:\n      rules:\n"+gwrMatch+gwrBackend)), want: []got{e(CodeMeshGatewayRoute, "spec.conf")}},
		{name: "no rules", doc: topMesh(res("MeshGatewayRoute", "r", "", gwSel+"  conf:\n    http: {}\n")), want: []got{e(CodeMeshGatewayRoute, "spec.conf.http.rules")}},
		{name: "no matches", doc: gwr("        - backends:\n            - destination:\n                kuma.io/service: api\n"), want: []got{e(CodeMeshGatewayRoute, rp+".matches")}},
		{name: "empty match", doc: gwr("        - matches:\n            - {}\n" + gwrBackend), want: []got{e(CodeMeshGatewayRoute, rp+".matches[0]")}},
		{name: "relative path", doc: gwr("        - matches:\n            - path:\n                value: api\n" + gwrBackend), want: []got{e(CodeMeshGatewayRoute, rp+".matches[0].path.value")}},
		{name: "empty regex", doc: gwr("        - matches:\n            - path:\n                match: REGEX\n" + gwrBackend), want: []got{e(CodeMeshGatewayRoute, rp+".matches[0].path.value")}},
		{name: "unknown method", doc: gwr("        - matches:\n            - method: FETCH\n" + gwrBackend), want: []got{e(CodeMeshGatewayRoute, rp+".matches[0].method")}},
		{name: "header present with value", doc: gwr("        - matches:\n            - headers:\n                - name: x\n                  match: PRESENT\n                  value: v\n" + gwrBackend), want: []got{e(CodeMeshGatewayRoute, rp+".matches[0].headers[0].value")}},
		{name: "header without name and value", doc: gwr("        - matches:\n            - headers:\n                - match: EXACT\n" + gwrBackend),
			want: []got{e(CodeMeshGatewayRoute, rp+".matches[0].headers[0].name"), e(CodeMeshGatewayRoute, rp+".matches[0].headers[0].value")}},
		{name: "query without value", doc: gwr("        - matches:\n            - queryParameters:\n                - name: q\n" + gwrBackend), want: []got{e(CodeMeshGatewayRoute, rp+".matches[0].queryParameters[0].value")}},
		{name: "no backends", doc: gwr(gwrMatch), want: []got{e(CodeMeshGatewayRoute, rp+".backends")}},
		{name: "backend without service", doc: gwr(gwrMatch + "          backends:\n            - destination:\n                app: x\n"), want: []got{e(CodeMeshGatewayRoute, rp+".backends[0].destination[kuma.io/service]")}},
		{name: "empty request header filter", doc: gwr(gwrMatch + "          filters:\n            - requestHeader: {}\n" + gwrBackend), want: []got{e(CodeMeshGatewayRoute, rp+".filters[0].requestHeader")}},
		{name: "header filter without value and empty remove", doc: gwr(gwrMatch + "          filters:\n            - requestHeader:\n                add:\n                  - name: x\n                remove: ['']\n" + gwrBackend),
			want: []got{e(CodeMeshGatewayRoute, rp+".filters[0].requestHeader.add[0].value"), e(CodeMeshGatewayRoute, rp+".filters[0].requestHeader.remove[0]")}},
		{name: "host header with host rewrite", doc: gwr(gwrMatch + "          filters:\n            - rewrite:\n                hostToBackendHostname: true\n            - requestHeader:\n                set:\n                  - name: Host\n                    value: b\n" + gwrBackend),
			want: []got{e(CodeMeshGatewayRoute, rp+".filters[1].requestHeader.set[0].name")}},
		{name: "two filters in one", doc: gwr(gwrMatch + "          filters:\n            - rewrite:\n                replaceFull: /x\n              requestHeader:\n                remove: [a]\n" + gwrBackend), want: []got{e(CodeMeshGatewayRoute, rp+".filters[0]")}},
		{name: "rewrite both path forms", doc: gwr(gwrMatch + "          filters:\n            - rewrite:\n                replaceFull: /x\n                replacePrefixMatch: /y\n" + gwrBackend), want: []got{e(CodeMeshGatewayRoute, rp+".filters[0].rewrite.replacePrefixMatch")}},
		{name: "prefix rewrite without prefix match", doc: gwr("        - matches:\n            - path:\n                value: /api\n          filters:\n            - rewrite:\n                replacePrefixMatch: /\n" + gwrBackend), want: []got{e(CodeMeshGatewayRoute, rp+".filters[0].rewrite.replacePrefixMatch")}},
		{name: "mirror without percentage and backend", doc: gwr(gwrMatch + "          filters:\n            - mirror: {}\n" + gwrBackend),
			want: []got{e(CodeMeshGatewayRoute, rp+".filters[0].mirror.backend"), e(CodeMeshGatewayRoute, rp+".filters[0].mirror.percentage")}},
		{name: "mirror percentage too high", doc: gwr(gwrMatch + "          filters:\n            - mirror:\n                percentage: 101\n                backend:\n                  destination:\n                    kuma.io/service: shadow\n" + gwrBackend), want: []got{e(CodeMeshGatewayRoute, rp+".filters[0].mirror.percentage")}},
		{name: "redirect bad status and port", doc: gwr(gwrMatch + "          filters:\n            - redirect:\n                port: 70000\n                statusCode: 200\n"),
			want: []got{e(CodeMeshGatewayRoute, rp+".filters[0].redirect.port"), e(CodeMeshGatewayRoute, rp+".filters[0].redirect.statusCode")}},
		{name: "redirect with backends", doc: gwr(gwrMatch + "          filters:\n            - redirect:\n                statusCode: 301\n" + gwrBackend), want: []got{e(CodeMeshGatewayRoute, rp+".backends")}},
		{name: "redirect with other filters", doc: gwr(gwrMatch + "          filters:\n            - redirect:\n                statusCode: 301\n            - requestHeader:\n                remove: [a]\n"), want: []got{e(CodeMeshGatewayRoute, rp+".filters")}},
	})
}
