package validate

import (
	"testing"

	"github.com/meshguard/meshguard/api"
)

// TestResourceOrigin holds Kuma's origin rules for resources: the label's value on
// every kind of its store, the mode rules only on its plugin kinds, nothing on its
// Kubernetes-only kinds.
func TestResourceOrigin(t *testing.T) {
	const trust = "  trustDomain: d\n  caBundles:\n    - type: Pem\n      pem:\n        value: |\n          -----BEGIN CERTIFICATE-----\n          MIIB\n          -----END CERTIFICATE-----\n"
	trustWith := func(labels ...string) string {
		return res("MeshTrust", "t", "kuma-system", trust, append([]string{"kuma.io/mesh: default"}, labels...)...)
	}
	gwWith := func(label string) string {
		return topMesh(res("MeshGateway", "edge", "", gwSel+"  conf:\n    listeners:\n      - port: 80\n        protocol: HTTP\n", label))
	}
	const op = "metadata.labels[kuma.io/origin]"
	runResourceCases(t, []resourceCase{
		{name: "plugin kind zone origin on zone", doc: trustWith("kuma.io/origin: zone"), mode: api.ModeZone},
		{name: "plugin kind defaulted on zone", doc: trustWith(), mode: api.ModeZone},
		{name: "plugin kind global origin on zone system namespace", doc: trustWith("kuma.io/origin: global"), mode: api.ModeZone, want: []got{e(CodeOrigin, op)}},
		{name: "plugin kind other zone label", doc: trustWith("kuma.io/origin: zone", "kuma.io/zone: zone-2"), mode: api.ModeZone, want: []got{e(CodeZoneLabel, "metadata.labels[kuma.io/zone]")}},
		{name: "plugin kind zone origin on global", doc: trustWith("kuma.io/origin: zone"), mode: api.ModeGlobal, want: []got{e(CodeOrigin, op)}},
		{name: "plugin kind any origin standalone", doc: trustWith("kuma.io/origin: global")},
		{name: "unknown origin value", doc: trustWith("kuma.io/origin: elsewhere"), want: []got{e(CodeOrigin, op)}},
		{name: "legacy kind global origin on zone", doc: gwWith("kuma.io/origin: global"), mode: api.ModeZone},
		{name: "legacy kind unknown origin", doc: gwWith("kuma.io/origin: x"), want: []got{e(CodeOrigin, op)}},
		{name: "kubernetes-only kind", doc: res("MeshGatewayInstance", "edge", "kuma-demo", "  replicas: 1\n", "kuma.io/mesh: default", "kuma.io/origin: x"), mode: api.ModeZone},
	})
}
