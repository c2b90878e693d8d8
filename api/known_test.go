package api_test

import (
	"slices"
	"testing"

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
