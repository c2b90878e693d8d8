package crds

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

// KumaRelease is the Kuma release whose real CRDs the e2e control plane installs.
const KumaRelease = "kuma-2.14"

// Installed returns the CRDs the e2e control plane and the demo install: Kuma's
// real CRDs of KumaRelease (all of its kinds, with their own schemas, scopes and
// CEL rules, so the API server refuses what a cluster running Kuma refuses), and
// CRDs generated from meshguard's types for the registry kinds of other groups
// (Linkerd's), whose real CRDs are not embedded yet.
func Installed(reg *api.Registry) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	out, err := schema.CRDs(KumaRelease)
	if err != nil {
		return nil, err
	}
	for _, c := range CRDs(reg) {
		if c.Spec.Group != api.KumaGroup {
			out = append(out, c)
		}
	}
	return out, nil
}
