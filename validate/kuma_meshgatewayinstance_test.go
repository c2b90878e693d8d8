package validate

import (
	"testing"

	"github.com/meshguard/meshguard/api"
)

func mgi(tags string) string {
	return res("MeshGatewayInstance", "edge", "kuma-demo", "  replicas: 1\n  serviceType: LoadBalancer\n"+tags, "kuma.io/mesh: default")
}

func TestMeshGatewayInstanceRules(t *testing.T) {
	runResourceCases(t, []resourceCase{
		{name: "valid", doc: mgi("  tags:\n    custom.io/gateway: edge\n")},
		{name: "valid on a zone", doc: mgi(""), mode: api.ModeZone},
		{name: "service tag", doc: mgi("  tags:\n    kuma.io/service: edge\n"), want: []got{e(CodeMeshGatewayInstance, "spec.tags[kuma.io/service]")}},
		{name: "tag value with slash", doc: mgi("  tags:\n    team: a/b\n"), want: []got{e(CodeMeshGatewayInstance, "spec.tags[team]")}},
		{name: "empty tag value", doc: mgi("  tags:\n    team: ''\n"), want: []got{e(CodeMeshGatewayInstance, "spec.tags[team]")}},
		{name: "created on global", doc: res("MeshGatewayInstance", "edge", "kuma-system", "  replicas: 1\n", "kuma.io/mesh: default"), mode: api.ModeGlobal,
			want: []got{e(CodeMeshGatewayInstance, "kind")}},
		{name: "any namespace on global: only the creation is refused", doc: mgi(""), mode: api.ModeGlobal,
			want: []got{e(CodeMeshGatewayInstance, "kind")}},
	})
}
