package api_test

import (
	"slices"
	"testing"

	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

// TestKnownKindsMatchTheCRDs: every kind of the meshes' real CRDs that meshguard
// embeds is a registry kind or a known resource (so it is never reported as an
// unknown kind), and for Linkerd, whose policy CRDs are embedded whole, no known
// name is one Linkerd does not have.
func TestKnownKindsMatchTheCRDs(t *testing.T) {
	reg := api.DefaultRegistry()
	for _, tc := range []struct {
		release, group string
		known          []string
		exact          bool
	}{
		{"kuma-2.14", api.KumaGroup, api.KnownKumaResources(), false},
		{"linkerd-edge-26.8.3", api.LinkerdGroup, api.KnownLinkerdResources(), true},
	} {
		s, err := schema.Load(tc.release)
		if err != nil {
			t.Fatal(err)
		}
		inCRDs := map[string]bool{}
		for _, gvk := range s.Kinds() {
			if gvk.Group != tc.group {
				continue
			}
			inCRDs[gvk.Kind] = true
			if reg.Lookup(gvk) == nil && !slices.Contains(tc.known, gvk.Kind) {
				t.Errorf("%s: %s is in the CRDs but neither a registry kind nor a known resource", tc.release, gvk)
			}
		}
		if !tc.exact {
			continue
		}
		for _, k := range tc.known {
			if !inCRDs[k] {
				t.Errorf("%s: known resource %s is not a kind of the %s CRDs", tc.release, k, tc.group)
			}
		}
		for _, k := range reg.Kinds() {
			if k.Group == tc.group && !s.Knows(k.GVK()) {
				t.Errorf("%s: registry kind %s %s is not served by the CRDs", tc.release, k.Version, k.Kind)
			}
		}
	}
}

// TestLinkerdRegistryIsTheCRDs: the Linkerd family of the registry is exactly the
// served versions of Linkerd's embedded CRDs (its policy kinds, every release) and
// of the embedded Gateway API bundles' routes, and a version is deprecated in the
// registry exactly when some release's CRD deprecates it (the warning is given only
// under a release that does: validate's linkerdSpec).
func TestLinkerdRegistryIsTheCRDs(t *testing.T) {
	var releases []string
	for _, v := range schema.LinkerdVersions() {
		releases = append(releases, schema.LinkerdRelease(v))
	}
	for _, v := range schema.GatewayAPIVersions() {
		releases = append(releases, schema.GatewayAPIRelease(v))
	}
	crds, err := schema.CRDs(releases...)
	if err != nil {
		t.Fatal(err)
	}
	reg := api.DefaultRegistry()
	served := map[k8sschema.GroupVersionKind]bool{}
	deprecated := map[k8sschema.GroupVersionKind]bool{}
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			gvk := crdGVK(crd.Spec.Group, v.Name, crd.Spec.Names.Kind)
			served[gvk] = true
			deprecated[gvk] = deprecated[gvk] || v.Deprecated
			if k := reg.Lookup(gvk); k == nil || k.Family != api.FamilyLinkerd {
				t.Errorf("%s is served by Linkerd's CRDs but not a Linkerd registry kind", gvk)
			}
		}
	}
	for _, k := range reg.Kinds() {
		if k.Family != api.FamilyLinkerd {
			continue
		}
		if !served[k.GVK()] {
			t.Errorf("registry kind %s is not served by Linkerd's CRDs", k.GVK())
		}
		if deprecated[k.GVK()] != (k.Deprecated != "") {
			t.Errorf("%s: deprecated by a release's CRD=%v, registry %q", k.GVK(), deprecated[k.GVK()], k.Deprecated)
		}
	}
}

// TestRegistryScopeMatchesTheCRDs: a kind is cluster-scoped in the registry exactly
// when its CRD says so, so the linter namespaces documents as the API server does.
func TestRegistryScopeMatchesTheCRDs(t *testing.T) {
	crds, err := schema.CRDs("kuma-2.14", "linkerd-edge-26.8.3", schema.GatewayAPIRelease("v1.5.1"))
	if err != nil {
		t.Fatal(err)
	}
	reg := api.DefaultRegistry()
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			k := reg.Lookup(crdGVK(crd.Spec.Group, v.Name, crd.Spec.Names.Kind))
			if k == nil {
				continue
			}
			if cluster := crd.Spec.Scope == "Cluster"; k.ClusterScoped != cluster {
				t.Errorf("%s: registry ClusterScoped=%v, CRD scope %s", k.Kind, k.ClusterScoped, crd.Spec.Scope)
			}
		}
	}
}

func crdGVK(group, version, kind string) k8sschema.GroupVersionKind {
	return k8sschema.GroupVersionKind{Group: group, Version: version, Kind: kind}
}
