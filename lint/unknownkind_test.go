package lint

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
	"github.com/meshguard/meshguard/validate"
)

// TestUnknownKinds: a kuma.io kind or version Kuma's CRDs do not serve is an error
// (kubectl apply would fail), with a suggestion for a typo; Kuma's resources that are
// not embedded (ZoneIngress, ...) pass; likewise for policy.linkerd.io and Linkerd's CRDs.
func TestUnknownKinds(t *testing.T) {
	o := Options{Settings: api.DefaultSettings(), Namespace: "default", Registry: api.DefaultRegistry()}
	for _, tc := range []struct {
		apiVersion, kind string
		want             string // "severity code", "" for no finding
		msg              string // substring of the message
	}{
		{"kuma.io/v1alpha1", "MeshTimout", "error " + validate.CodeUnservedKind, "did you mean MeshTimeout?"},
		{"kuma.io/v1beta1", "MeshTimeout", "error " + validate.CodeUnservedKind, `serves MeshTimeout as kuma.io/v1alpha1, not "v1beta1"`},
		{"kuma.io/v1alpha1", "Frobnicator", "error " + validate.CodeUnservedKind, "has no kind Frobnicator in kuma.io/v1alpha1"},
		{"kuma.io/v1alpha1", "ZoneIngress", "", ""},
		// Linkerd's CRDs (edge-26.8.3) are as complete for policy.linkerd.io as Kuma's
		// for kuma.io: kubectl apply fails on what they do not serve.
		{"policy.linkerd.io/v1beta3", "Sever", "error " + validate.CodeUnservedKind, "has no kind Sever; did you mean Server?"},
		{"policy.linkerd.io/v1beta3", "AuthorizationPolicy", "error " + validate.CodeUnservedKind, `serves AuthorizationPolicy as policy.linkerd.io/v1alpha1, not "v1beta3"`},
		{"policy.linkerd.io/v1alpha1", "Frobnicator", "error " + validate.CodeUnservedKind, "has no kind Frobnicator in policy.linkerd.io/v1alpha1"},
		{"apps/v1", "Deployment", "", ""},
		// The Gateway API group holds routes meshguard checks for Linkerd, but its other
		// kinds and versions are not unknown to anyone.
		{"gateway.networking.k8s.io/v1", "Gateway", "", ""},
		{"gateway.networking.k8s.io/v1beta1", "ReferenceGrant", "", ""},
		{"gateway.networking.k8s.io/v1", "HTTPRoute", "", ""},
	} {
		doc := "apiVersion: " + tc.apiVersion + "\nkind: " + tc.kind + "\nmetadata:\n  name: x\n  namespace: default\nspec: {}\n"
		fs, _ := Lint(LoadBytes("x.yaml", []byte(doc)), o)
		var got []string
		for _, f := range fs {
			got = append(got, f.Severity+" "+f.Code)
			if !strings.Contains(f.Message, tc.msg) {
				t.Errorf("%s %s: message %q lacks %q", tc.apiVersion, tc.kind, f.Message, tc.msg)
			}
		}
		var want []string
		if tc.want != "" {
			want = []string{tc.want}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s %s (-want +got):\n%s", tc.apiVersion, tc.kind, d)
		}
	}
}

// TestKindsAReleaseDoesNotServe: under --kuma-version 2.13 the kinds Kuma 2.14 added
// (MeshOpenTelemetryBackend, MeshZoneAddress) are MG005 errors, as the API server of
// a 2.13 cluster has no CRD for them; under 2.14 they are judged as usual.
func TestKindsAReleaseDoesNotServe(t *testing.T) {
	for _, tc := range []struct {
		version string
		want    []string
	}{
		{"2.13", []string{"error " + validate.CodeUnservedKind, "error " + validate.CodeUnservedKind}},
		{"2.14", nil},
	} {
		s := api.DefaultSettings()
		s.KumaVersion = tc.version
		if err := schema.CheckSettings(s); err != nil {
			t.Fatal(err)
		}
		if err := schema.LoadInto(&s); err != nil {
			t.Fatal(err)
		}
		o := Options{Settings: s, Namespace: "kuma-system", Registry: api.DefaultRegistry()}
		doc := `apiVersion: kuma.io/v1alpha1
kind: MeshOpenTelemetryBackend
metadata: {name: otel, namespace: kuma-system, labels: {kuma.io/mesh: default}}
spec:
  endpoint: {address: otel-collector.observability, port: 4317}
---
apiVersion: kuma.io/v1alpha1
kind: MeshZoneAddress
metadata: {name: zone-a, namespace: kuma-system, labels: {kuma.io/mesh: default}}
spec:
  address: 10.0.0.1
  port: 10001
`
		fs, _ := Lint(LoadBytes("x.yaml", []byte(doc)), o)
		var got []string
		for _, f := range fs {
			if f.Severity == validate.SeverityError {
				got = append(got, f.Severity+" "+f.Code)
				if !strings.Contains(f.Message, "Kuma 2.13 does not serve kuma.io/v1alpha1 Mesh") || f.Field != "kind" {
					t.Errorf("%s: %s: %s", tc.version, f.Field, f.Message)
				}
			}
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("Kuma %s (-want +got):\n%s", tc.version, d)
		}
	}
}

// TestKindsKuma30Removed: under --kuma-version 3.0-preview the legacy kinds Kuma 3.0
// removed (the twelve legacy policies, ExternalService, the standalone zone
// proxies) are MG005 errors that name what replaces them; 2.14 still serves them,
// so they pass as known resources there.
func TestKindsKuma30Removed(t *testing.T) {
	doc := `apiVersion: kuma.io/v1alpha1
kind: TrafficPermission
mesh: default
metadata: {name: tp}
spec:
  sources: [{match: {kuma.io/service: '*'}}]
  destinations: [{match: {kuma.io/service: '*'}}]
---
apiVersion: kuma.io/v1alpha1
kind: ExternalService
mesh: default
metadata: {name: httpbin}
spec:
  networking: {address: httpbin.org:443}
  tags: {kuma.io/service: httpbin, kuma.io/protocol: http}
`
	for _, tc := range []struct {
		version string
		want    []string
	}{
		{"3.0-preview", []string{"write a MeshTrafficPermission (a targetRef policy)", "write a MeshExternalService"}},
		{"2.14", nil},
	} {
		s := api.DefaultSettings()
		s.KumaVersion = tc.version
		if err := schema.LoadInto(&s); err != nil {
			t.Fatal(err)
		}
		fs, _ := Lint(LoadBytes("x.yaml", []byte(doc)), Options{Settings: s, Namespace: "default", Registry: api.DefaultRegistry()})
		var got []string
		for _, f := range fs {
			if f.Code != validate.CodeUnservedKind || f.Severity != validate.SeverityError || f.Field != "kind" {
				t.Errorf("Kuma %s: %s %s %s: %s", tc.version, f.Severity, f.Code, f.Field, f.Message)
				continue
			}
			_, say, _ := strings.Cut(f.Message, "; Kuma 3.0 removed ")
			if i := strings.Index(say, ": "); i >= 0 {
				say = say[i+2:]
			}
			got = append(got, say)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("Kuma %s (-want +got):\n%s", tc.version, d)
		}
	}
}
