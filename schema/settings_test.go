package schema_test

import (
	"slices"
	"strings"
	"testing"

	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

// TestSettingsSchemas: the defaults api.DefaultSettings names are embedded releases,
// LoadInto gives the engine the set as an api.SchemaSet that serves both meshes'
// kinds, and CheckSettings refuses a release meshguard does not embed, as the
// settings check did before the versions moved here.
func TestSettingsSchemas(t *testing.T) {
	s := api.DefaultSettings()
	if !schema.KnowsKuma(s.KumaVersion) || !schema.KnowsLinkerd(s.LinkerdVersion) {
		t.Fatalf("the default releases %q and %q are not embedded", s.KumaVersion, s.LinkerdVersion)
	}
	if err := schema.CheckSettings(s); err != nil {
		t.Fatalf("CheckSettings(defaults): %v", err)
	}
	if err := schema.LoadInto(&s); err != nil {
		t.Fatal(err)
	}
	var set api.SchemaSet = s.Schemas
	if _, ok := set.(*schema.Set); !ok {
		t.Fatalf("LoadInto set %T, not *schema.Set", set)
	}
	reg := api.DefaultRegistry()
	for _, k := range []*api.Kind{reg.MeshTrafficPermission(), reg.LinkerdServer()} {
		if !set.Knows(k.GVK()) {
			t.Errorf("the loaded set does not serve %s", k.GVK())
		}
	}
	for _, tc := range []struct{ kuma, linkerd, want string }{
		{"9.9", "", "--kuma-version must be one of"},
		{api.DefaultKumaVersion, "stable-1.0", "--linkerd-version must be one of"},
	} {
		bad := api.DefaultSettings()
		bad.KumaVersion, bad.LinkerdVersion = tc.kuma, tc.linkerd
		if err := schema.CheckSettings(bad); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckSettings(kuma %q, linkerd %q) = %v, want %q", tc.kuma, tc.linkerd, err, tc.want)
		}
	}
}

// TestEveryKindServed: every registered kind is served by the CRDs of some release
// the settings can select (Kuma's default release for Kuma's kinds; for the
// Gateway API routes, some bundle: GRPCRoute v1alpha2 only by v1.1.1, TLSRoute v1 only
// by v1.5.1), so in every door the schema layer answers for every object meshguard
// judges or refuses its version as unserved (MG005), and the hand-written
// structural check (api.Check) is never the only check there.
func TestEveryKindServed(t *testing.T) {
	var sets []api.SchemaSet
	for _, gv := range schema.GatewayAPIVersions() {
		s := api.DefaultSettings()
		s.GatewayAPIVersion = gv
		if err := schema.LoadInto(&s); err != nil {
			t.Fatal(err)
		}
		sets = append(sets, s.Schemas)
	}
	for _, k := range api.DefaultRegistry().Kinds() {
		if !slices.ContainsFunc(sets, func(s api.SchemaSet) bool { return s.Knows(k.GVK()) }) {
			t.Errorf("no embedded CRD serves %s: the schema layer would not answer for it, and its wrong types would reach the kind's rules unreported", k.GVK())
		}
	}
}

// TestLinkerdReleasesSelectTheirCRDs: each Linkerd release loads its policy CRDs
// and, by default, the Gateway API bundle it installs or documents; an explicit
// --gateway-api-version wins; a Gateway API version meshguard does not embed fails
// CheckSettings.
func TestLinkerdReleasesSelectTheirCRDs(t *testing.T) {
	tlsV1 := k8sschema.GroupVersionKind{Group: api.GatewayGroup, Version: "v1", Kind: api.KindTLSRoute}
	grpcAlpha := k8sschema.GroupVersionKind{Group: api.GatewayGroup, Version: "v1alpha2", Kind: api.KindGRPCRoute}
	for _, tc := range []struct {
		linkerd, gateway string
		tlsV1, grpcAlpha bool
	}{
		{api.LinkerdV218, "", false, true},  // v1.1.1, bundled
		{api.LinkerdV219, "", false, false}, // v1.4.1
		{api.LinkerdV220, "", false, false}, // v1.2.1
		{api.LinkerdEdge, "", true, false},  // v1.5.1
		{api.LinkerdV218, "v1.5.1", true, false},
	} {
		s := api.DefaultSettings()
		s.LinkerdVersion, s.GatewayAPIVersion = tc.linkerd, tc.gateway
		if err := schema.CheckSettings(s); err != nil {
			t.Fatal(err)
		}
		if err := schema.LoadInto(&s); err != nil {
			t.Fatal(err)
		}
		if got := s.Schemas.Knows(tlsV1); got != tc.tlsV1 {
			t.Errorf("%s, gateway %q: serves TLSRoute v1 = %v", tc.linkerd, tc.gateway, got)
		}
		if got := s.Schemas.Knows(grpcAlpha); got != tc.grpcAlpha {
			t.Errorf("%s, gateway %q: serves GRPCRoute v1alpha2 = %v", tc.linkerd, tc.gateway, got)
		}
		if err := s.Schemas.(*schema.Set).DeferredErr(); err != nil {
			t.Errorf("%s: %v", tc.linkerd, err)
		}
	}
	bad := api.DefaultSettings()
	bad.GatewayAPIVersion = "v1.0.0"
	if err := schema.CheckSettings(bad); err == nil || !strings.Contains(err.Error(), "--gateway-api-version must be one of") {
		t.Errorf("CheckSettings(gateway v1.0.0) = %v", err)
	}
}
