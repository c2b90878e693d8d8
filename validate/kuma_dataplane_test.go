package validate

import "testing"

// dpn is a Dataplane with these networking lines (under spec.networking).
func dpn(networking string) string {
	return topMesh(res("Dataplane", "dp-1", "kuma-demo", "  networking:\n"+networking))
}

const dpIn = "    address: 192.168.0.1\n    inbound:\n      - port: 8080\n        tags:\n          kuma.io/service: backend\n"

func TestDataplaneRules(t *testing.T) {
	const np = "spec.networking"
	runResourceCases(t, []resourceCase{
		{name: "valid", doc: dpn(dpIn + "    outbound:\n      - port: 3333\n        tags:\n          kuma.io/service: redis\n      - port: 4444\n        backendRef:\n          kind: MeshService\n          name: redis\n          port: 6379\n")},
		{name: "valid delegated gateway", doc: dpn("    address: 192.168.0.1\n    gateway:\n      tags:\n        kuma.io/service: edge\n")},
		{name: "valid snake_case and probe", doc: dpn(dpIn + "        serviceProbe:\n          interval: 1s\n          healthy_threshold: 2\n    transparent_proxying:\n      reachable_backends:\n        refs:\n          - kind: MeshService\n            name: redis\n")},
		{name: "no networking", doc: topMesh(res("Dataplane", "dp-1", "kuma-demo", "  {}\n")), want: []got{e(CodeDataplane, np)}},
		{name: "wildcard address", doc: dpn("    address: 0.0.0.0\n"), want: []got{e(CodeDataplane, np+".address")}},
		{name: "bad address", doc: dpn("    address: 'not an address'\n"), want: []got{e(CodeDataplane, np+".address")}},
		{name: "inbound without service", doc: dpn("    address: 192.168.0.1\n    inbound:\n      - port: 8080\n        tags:\n          version: v1\n"), want: []got{e(CodeDataplane, np+".inbound[0].tags[kuma.io/service]")}},
		{name: "inbound bad protocol and port", doc: dpn("    address: 192.168.0.1\n    inbound:\n      - port: 70000\n        protocol: smtp\n"),
			want: []got{e(CodeDataplane, np+".inbound[0].port"), e(CodeDataplane, np+".inbound[0].protocol")}},
		{name: "inbound same address as app", doc: dpn("    address: 192.168.0.1\n    inbound:\n      - port: 8080\n        serviceAddress: 192.168.0.1\n"), want: []got{e(CodeDataplane, np+".inbound[0].serviceAddress")}},
		{name: "probe zero threshold and bad duration", doc: dpn(dpIn + "        serviceProbe:\n          interval: 1m\n          unhealthyThreshold: 0\n"),
			want: []got{e(CodeDataplane, np+".inbound[0].serviceProbe.interval"), e(CodeDataplane, np+".inbound[0].serviceProbe.unhealthyThreshold")}},
		{name: "outbound without service", doc: dpn(dpIn + "    outbound:\n      - port: 3333\n"), want: []got{e(CodeDataplane, np+".outbound[0].tags[kuma.io/service]")}},
		{name: "outbound backendRef and tags", doc: dpn(dpIn + "    outbound:\n      - port: 3333\n        tags:\n          kuma.io/service: redis\n        backendRef:\n          kind: MeshGateway\n          name: x\n          port: 1\n"),
			want: []got{e(CodeDataplane, np+".outbound[0].backendRef"), e(CodeDataplane, np+".outbound[0].backendRef.kind")}},
		{name: "admin port clash", doc: dpn(dpIn + "    outbound:\n      - port: 9901\n        tags:\n          kuma.io/service: redis\n    admin:\n      port: 9901\n"), want: []got{e(CodeDataplane, np+".admin.port")}},
		{name: "delegated gateway with inbound", doc: dpn(dpIn + "    gateway:\n      tags:\n        kuma.io/service: edge\n"), want: []got{e(CodeDataplane, np+".inbound")}},
		{name: "gateway protocol not tcp", doc: dpn("    address: 192.168.0.1\n    gateway:\n      tags:\n        kuma.io/service: edge\n        kuma.io/protocol: http\n"), want: []got{e(CodeDataplane, np+".gateway.tags[kuma.io/protocol]")}},
		{name: "builtin gateway with probes", doc: topMesh(res("Dataplane", "dp-1", "kuma-demo", "  networking:\n    address: 192.168.0.1\n    gateway:\n      type: BUILTIN\n      tags:\n        kuma.io/service: edge\n  probes:\n    port: 9000\n")),
			want: []got{e(CodeDataplane, "spec.probes")}},
		{name: "probes bad path", doc: topMesh(res("Dataplane", "dp-1", "kuma-demo", "  networking:\n"+dpIn+"  probes:\n    port: 9000\n    endpoints:\n      - inboundPort: 8080\n        inboundPath: healthz\n        path: /8080/healthz\n")),
			want: []got{e(CodeDataplane, "spec.probes.endpoints[0].inboundPath")}},
		{name: "reachable backend name and labels", doc: dpn(dpIn + "    transparentProxying:\n      reachableBackends:\n        refs:\n          - kind: MeshService\n            name: Redis\n            labels:\n              app: redis\n"),
			want: []got{e(CodeDataplane, np+".transparentProxying.reachableBackends.refs[0].labels"), e(CodeDataplane, np+".transparentProxying.reachableBackends.refs[0].name")}},
		{name: "listener without type clashing with inbound", doc: dpn(dpIn + "    listeners:\n      - address: 192.168.0.1\n        port: 8080\n"),
			want: []got{e(CodeDataplane, np+".listeners[0]"), e(CodeDataplane, np+".listeners[0].type")}},
		{name: "unknown enum names", doc: dpn("    address: 192.168.0.1\n    inbound:\n      - port: 8080\n        state: Broken\n    transparentProxying:\n      ipFamilyMode: IPv5\n"),
			want: []got{e(CodeDataplane, np+".inbound[0].state"), e(CodeDataplane, np+".transparentProxying.ipFamilyMode")}},
		{name: "metrics backend type", doc: topMesh(res("Dataplane", "dp-1", "kuma-demo", "  networking:\n"+dpIn+"  metrics:\n    type: statsd\n")), want: []got{e(CodeDataplane, "spec.metrics.type")}},
	})
}
