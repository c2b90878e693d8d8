package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinkerdReleaseFlags: --linkerd-version takes a release tag or a feature release's
// short form (2.18 is version-2.18) and selects its admission rules;
// --gateway-api-version selects the route CRDs; an unknown value of either is a usage
// error naming the choices.
func TestLinkerdReleaseFlags(t *testing.T) {
	f := filepath.Join(t.TempDir(), "ap.yaml")
	doc := `apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: ap, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}
  requiredAuthenticationRefs: [{group: policy.linkerd.io, kind: MeshTLSAuthentication, name: clients}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: TLSRoute
metadata: {name: tls, namespace: shop}
spec:
  parentRefs: [{group: core, kind: Service, name: web, port: 443}]
  hostnames: [shop.example]
  rules: [{backendRefs: [{name: web, port: 8443}]}]
`
	if err := os.WriteFile(f, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args       []string
		code       int
		has, hasnt string
	}{
		{[]string{"--linkerd-version", "2.18"}, exitFindings, "Linkerd version-2.18 does not take a Gateway API HTTPRoute", "MG340"},
		{[]string{"--linkerd-version", "2.18"}, exitFindings, "Gateway API v1.1.1 does not serve gateway.networking.k8s.io/v1 TLSRoute", "MG340"}, // its bundle
		{[]string{"--linkerd-version", "version-2.19", "--gateway-api-version", "v1.5.1"}, exitOK, "0 errors", "MG320"},
		{nil, exitOK, "0 errors", "MG"}, // edge-26.8.3 and v1.5.1
		{[]string{"--gateway-api-version", "v1.4.1"}, exitFindings, "Gateway API v1.4.1 does not serve gateway.networking.k8s.io/v1 TLSRoute", "MG320"},
	} {
		code, out, errs := runCapture("meshguard", append(append([]string{"lint"}, tc.args...), f)...)
		if code != tc.code || !strings.Contains(out+errs, tc.has) || strings.Contains(out, tc.hasnt) {
			t.Errorf("lint %v: exit %d, want %d with %q and without %q:\n%s%s", tc.args, code, tc.code, tc.has, tc.hasnt, out, errs)
		}
	}
	for _, args := range [][]string{{"--linkerd-version", "2.17"}, {"--gateway-api-version", "v1.0.0"}} {
		code, _, errs := runCapture("meshguard", append(append([]string{"lint"}, args...), f)...)
		if code != exitUsage || !strings.Contains(errs, "must be one of") {
			t.Errorf("lint %v: exit %d, stderr %q", args, code, errs)
		}
	}
}
