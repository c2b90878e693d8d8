package schema_test

import (
	"strings"
	"testing"

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

// TestEveryKindServed: the default releases' CRDs serve every registered kind, so
// in every door the schema layer answers for every object meshguard judges, and
// the hand-written structural check (api.Check) is never the only check there:
// validate runs it only to clean a spec the schema found wrongly typed, or where
// an engine test loads no schemas.
func TestEveryKindServed(t *testing.T) {
	s := api.DefaultSettings()
	if err := schema.LoadInto(&s); err != nil {
		t.Fatal(err)
	}
	for _, k := range api.DefaultRegistry().Kinds() {
		if !s.Schemas.Knows(k.GVK()) {
			t.Errorf("no embedded CRD serves %s: the schema layer would not answer for it, and its wrong types would reach the kind's rules unreported", k.GVK())
		}
	}
}
