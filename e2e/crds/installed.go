package crds

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

// Releases are the mesh releases whose real CRDs the e2e control plane installs: the
// default Kuma and Linkerd releases and the Gateway API bundle the default Linkerd
// release documents, which `meshguard serve` checks against by default.
var Releases = []string{"kuma-2.14", "linkerd-edge-26.8.3", schema.GatewayAPIRelease(api.GatewayAPIFor(api.DefaultLinkerdVersion))}

// Installed returns the CRDs the e2e control plane and the demo install: the meshes'
// real CRDs of Releases (with their own schemas, scopes and CEL rules, so the API
// server refuses what a cluster running those releases refuses), and CRDs generated
// from meshguard's types for any registry kind none of them serves.
func Installed(reg *api.Registry) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	out, err := schema.CRDs(Releases...)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, c := range out {
		names[c.Name] = true
	}
	for _, c := range CRDs(reg) {
		if !names[c.Name] {
			out = append(out, c)
		}
	}
	return out, nil
}
