package api

import "testing"

// TestScopeHolds is Kuma's IncludesGateways and the scopes built on it.
func TestScopeHolds(t *testing.T) {
	ref := func(k RefKind, pt ...string) *TargetRef { return &TargetRef{Kind: k, ProxyTypes: pt} }
	cases := []struct {
		name  string
		top   *TargetRef
		scope Scope
		want  bool
	}{
		{"absent targetRef is Mesh", nil, ScopeGateways, true},
		{"Mesh", ref(RefMesh), ScopeGateways, true},
		{"Mesh sidecars", ref(RefMesh, "Sidecar"), ScopeGateways, false},
		{"MeshSubset gateways", ref(RefMeshSubset, "Sidecar", "Gateway"), ScopeGateways, true},
		{"MeshHTTPRoute", ref(RefMeshHTTPRoute), ScopeGateways, true},
		{"Dataplane", ref(RefDataplane), ScopeGateways, false},
		{"Dataplane sidecars only", ref(RefDataplane), ScopeSidecarsOnly, true},
		{"MeshGateway", ref(RefMeshGateway), ScopeGatewayOrRoute, true},
		{"Mesh is not a gateway or route", ref(RefMesh), ScopeGatewayOrRoute, false},
		{"never", ref(RefMeshGateway), ScopeNever, false},
	}
	for _, tc := range cases {
		if got := tc.scope.Holds(tc.top); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestKumaRulesCoverPolicies: every Kuma policy kind gets the options of its
// validator; a kind that requires sections also rejects mixing them with rules
// where it has rules.
func TestKumaRulesCoverPolicies(t *testing.T) {
	for _, k := range KumaKinds() {
		sh := k.Shared
		if sh.Require != 0 && !k.Sections.Has(sh.Require&k.Sections) {
			t.Errorf("%s requires sections it does not have", k.Kind)
		}
		if sh.RulesExclude != 0 && !k.Sections.Has(SecRules) {
			t.Errorf("%s: rules exclude sections, but it has no rules", k.Kind)
		}
		if sh.ListenerTags && !ContainsRef(k.TopLevel, RefMeshGateway) {
			t.Errorf("%s allows listener tags without a MeshGateway target", k.Kind)
		}
	}
	if kumaShared(KindMeshTimeout).FromForbidden != ScopeGatewayOrRoute {
		t.Error("MeshTimeout refuses from on a MeshGateway or MeshHTTPRoute")
	}
}

// TestKumaBefore: releases compare by their numeric parts ("2.9" is before
// "2.13"), an empty version is the default release, and a pre-release
// ("3.0-preview") orders after 2.14 and counts as the release it leads to.
func TestKumaBefore(t *testing.T) {
	for _, tc := range []struct {
		version, release string
		want             bool
	}{
		{"2.13", "2.14", true}, {"2.14", "2.14", false}, {"2.9", "2.13", true},
		{"3.0", "2.14", false}, {"", "2.14", false}, {"", "2.15", true},
		{"3.0-preview", "2.14", false}, {"2.14", "3.0", true}, {"2.13", "3.0", true},
		{"3.0-preview", "3.0", false}, {"3.0", "3.0-preview", false}, {"3.0-preview", "3.1", true},
		{"2.14.1", "2.14", false}, {"2.14", "2.14.1", true}, {"2.x", "2.14", false}, {"2", "2.14", true},
	} {
		if got := KumaBefore(tc.version, tc.release); got != tc.want {
			t.Errorf("KumaBefore(%q, %q) = %v, want %v", tc.version, tc.release, got, tc.want)
		}
	}
	// Every release-aware rule asks, for every document: nothing is allocated.
	if n := testing.AllocsPerRun(100, func() { KumaBefore("2.14", "3.0") }); n != 0 {
		t.Errorf("KumaBefore allocated %v times per call, want 0", n)
	}
}
