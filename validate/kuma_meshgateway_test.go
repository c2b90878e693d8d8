package validate

import (
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
)

// gw is a MeshGateway of mesh default with the given spec lines (two-space indented
// under spec).
func gw(spec string) string { return topMesh(res("MeshGateway", "edge", "", spec)) }

// topMesh gives a manifest the top-level mesh field Kuma reads for its old-style kinds.
func topMesh(doc string) string {
	return strings.Replace(doc, "\nmetadata:", "\nmesh: default\nmetadata:", 1)
}

const gwSel = "  selectors:\n    - match:\n        kuma.io/service: edge\n"

// gwL is a gateway with the good selector and these listener lines.
func gwL(listeners string) string { return gw(gwSel + "  conf:\n    listeners:\n" + listeners) }

func TestMeshGatewayRules(t *testing.T) {
	const http80 = "      - port: 80\n        protocol: HTTP\n"
	runResourceCases(t, []resourceCase{
		{name: "valid http listener", doc: gwL(http80 + "        hostname: '*.example.com'\n        tags:\n          name: web\n")},
		{name: "valid tls terminate", doc: gwL("      - port: 443\n        protocol: TLS\n        tls:\n          mode: TERMINATE\n          certificates:\n            - secret: cert\n")},
		{name: "valid cross-mesh", doc: gwL("      - port: 99\n        protocol: HTTP\n        crossMesh: true\n")},
		{name: "valid equal connection limits", doc: gwL(http80 + "        hostname: a.com\n        resources: {connectionLimit: 2}\n" + http80 + "        hostname: b.com\n        resources: {connectionLimit: 2}\n")},
		{name: "valid numeric protocol", doc: gwL("      - port: 80\n        protocol: 4\n")},
		{name: "no selectors", doc: gw("  conf:\n    listeners:\n" + http80), want: []got{e(CodeMeshGateway, "spec.selectors")}},
		{name: "selector without service", doc: gw("  selectors:\n    - match:\n        app: edge\n  conf:\n    listeners:\n" + http80),
			want: []got{e(CodeMeshGateway, `spec.selectors[0].match[kuma.io/service]`)}},
		{name: "selector empty match", doc: gw("  selectors:\n    - match: {}\n  conf:\n    listeners:\n" + http80),
			want: []got{e(CodeMeshGateway, "spec.selectors[0].match")}},
		{name: "service tag on gateway", doc: gw(gwSel + "  tags:\n    kuma.io/service: x\n  conf:\n    listeners:\n" + http80),
			want: []got{e(CodeMeshGateway, `spec.tags[kuma.io/service]`)}},
		{name: "bad tag value", doc: gwL(http80 + "        tags:\n          name: 'a b'\n"), want: []got{e(CodeMeshGateway, `spec.conf.listeners[0].tags[name]`)}},
		{name: "no conf", doc: gw(gwSel), want: []got{e(CodeMeshGateway, "spec.conf")}},
		{name: "no listeners", doc: gw(gwSel + "  conf: {}\n"), want: []got{e(CodeMeshGateway, "spec.conf.listeners")}},
		{name: "port 0", doc: gwL("      - protocol: HTTP\n"), want: []got{e(CodeMeshGateway, "spec.conf.listeners[0].port")}},
		{name: "no protocol", doc: gwL("      - port: 80\n"), want: []got{e(CodeMeshGateway, "spec.conf.listeners[0].protocol")}},
		{name: "unknown protocol", doc: gwL("      - port: 80\n        protocol: HTTP3\n"), want: []got{e(CodeMeshGateway, "spec.conf.listeners[0].protocol")}},
		{name: "bad hostname", doc: gwL(http80 + "        hostname: Foo_Bar\n"), want: []got{e(CodeMeshGateway, "spec.conf.listeners[0].hostname")}},
		{name: "bad wildcard", doc: gwL(http80 + "        hostname: '*.-x'\n"), want: []got{e(CodeMeshGateway, "spec.conf.listeners[0].hostname")}},
		{name: "https without tls", doc: gwL("      - port: 443\n        protocol: HTTPS\n"), want: []got{e(CodeMeshGateway, "spec.conf.listeners[0].tls")}},
		{name: "https passthrough", doc: gwL("      - port: 443\n        protocol: HTTPS\n        tls:\n          mode: PASSTHROUGH\n"), want: []got{e(CodeMeshGateway, "spec.conf.listeners[0].tls.mode")}},
		{name: "https cross-mesh", doc: gwL("      - port: 443\n        protocol: HTTPS\n        crossMesh: true\n"), want: []got{e(CodeMeshGateway, "spec.conf.listeners[0].protocol")}},
		{name: "tls without mode", doc: gwL("      - port: 443\n        protocol: TLS\n        tls:\n          certificates:\n            - secret: c\n"), want: []got{e(CodeMeshGateway, "spec.conf.listeners[0].tls.mode")}},
		{name: "terminate without certificates", doc: gwL("      - port: 443\n        protocol: TLS\n        tls:\n          mode: TERMINATE\n"), want: []got{e(CodeMeshGateway, "spec.conf.listeners[0].tls.certificates")}},
		{name: "terminate with three certificates", doc: gwL("      - port: 443\n        protocol: TLS\n        tls:\n          mode: TERMINATE\n          certificates: [{secret: a}, {secret: b}, {secret: c}]\n"), want: []got{e(CodeMeshGateway, "spec.conf.listeners[0].tls.certificates")}},
		{name: "cross-mesh with tls", doc: gwL("      - port: 99\n        protocol: HTTP\n        crossMesh: true\n        tls:\n          mode: TERMINATE\n"), want: []got{e(CodeMeshGateway, "spec.conf.listeners[0].tls")}},
		{name: "cross-mesh two selectors", doc: gw(gwSel + "    - match:\n        kuma.io/service: other\n  conf:\n    listeners:\n      - port: 99\n        protocol: HTTP\n        crossMesh: true\n"), want: []got{e(CodeMeshGateway, "spec.selectors[1]")}},
		{name: "protocol conflict", doc: gwL(http80 + "        hostname: a.com\n      - port: 80\n        protocol: TCP\n        hostname: b.com\n"),
			want: []got{e(CodeMeshGateway, "spec.conf.listeners[0].protocol"), e(CodeMeshGateway, "spec.conf.listeners[1].protocol")}},
		{name: "hostname conflict", doc: gwL(http80 + http80), want: []got{e(CodeMeshGateway, "spec.conf.listeners[0].hostname"), e(CodeMeshGateway, "spec.conf.listeners[1].hostname")}},
		{name: "connection limit conflict", doc: gwL(http80 + "        hostname: a.com\n        resources: {connectionLimit: 1}\n" + http80 + "        hostname: b.com\n        resources: {connectionLimit: 2}\n"),
			want: []got{e(CodeMeshGateway, "spec.conf.listeners[0].resources.connectionLimit"), e(CodeMeshGateway, "spec.conf.listeners[1].resources.connectionLimit")}},
		{name: "wrong type", doc: gwL("      - port: eighty\n        protocol: HTTP\n"), want: []got{e(CodeMeshGateway, "spec")}},
		{name: "unknown field warns", doc: gwL(http80 + "        hostnme: a.com\n"), want: []got{w("MG001", "spec.conf.listeners[0].hostnme")}},
		{name: "mesh only as label", doc: res("MeshGateway", "edge", "", gwSel+"  conf:\n    listeners:\n"+http80, "kuma.io/mesh: default"), want: []got{e(CodeMeshName, "mesh")}},
		{name: "bad top-level mesh", doc: strings.Replace(gwL(http80), "mesh: default", "mesh: Prod!", 1), want: []got{e(CodeMeshName, "mesh")}},
		{name: "top-level mesh labels the gateway", doc: strings.Replace(gwL(http80), "mesh: default", "mesh: other", 1), mode: api.ModeStandalone},
	})
}
