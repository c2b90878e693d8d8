package validate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

// releaseSettings are the default settings for Kuma release version, with its
// CRDs loaded as every door loads them.
func releaseSettings(t *testing.T, version string) api.Settings {
	t.Helper()
	s := api.DefaultSettings()
	s.KumaVersion = version
	if err := schema.LoadInto(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestKumaReleaseDeltas: the policies whose verdict changed between Kuma 2.13.10 and
// 2.14.3 get each release's verdict under --kuma-version (the error codes and fields
// each release's validator or CRDs give; nil where the release accepts them). Each
// case fails under one of the releases without the release-aware rules.
func TestKumaReleaseDeltas(t *testing.T) {
	for _, tc := range []struct {
		name, doc  string
		v213, v214 []got
	}{
		{"MeshHealthCheck to MeshExternalService under a MeshService", `apiVersion: kuma.io/v1alpha1
kind: MeshHealthCheck
metadata: {name: hc, namespace: kuma-system}
spec:
  targetRef: {kind: MeshService, name: web}
  to:
  - targetRef: {kind: MeshExternalService, name: ext}
    default: {interval: 10s, timeout: 2s, unhealthyThreshold: 3, healthyThreshold: 1, tcp: {}}
`, []got{{CodeToKind, "spec.to[0].targetRef.kind", SeverityError}}, nil},
		{"MeshHealthCheck to MeshExternalService under the Mesh", `apiVersion: kuma.io/v1alpha1
kind: MeshHealthCheck
metadata: {name: hc, namespace: kuma-system}
spec:
  to:
  - targetRef: {kind: MeshExternalService, name: ext}
    default: {interval: 10s, timeout: 2s, unhealthyThreshold: 3, healthyThreshold: 1, tcp: {}}
`, nil, nil},
		{"MeshCircuitBreaker to MeshExternalService under a Dataplane", `apiVersion: kuma.io/v1alpha1
kind: MeshCircuitBreaker
metadata: {name: cb, namespace: kuma-system}
spec:
  targetRef: {kind: Dataplane, labels: {app: web}}
  to:
  - targetRef: {kind: MeshExternalService, name: ext}
    default: {connectionLimits: {maxConnections: 2}}
`, []got{{CodeToKind, "spec.to[0].targetRef.kind", SeverityError}}, nil},
		{"MeshLoadBalancingStrategy without to", `apiVersion: kuma.io/v1alpha1
kind: MeshLoadBalancingStrategy
metadata: {name: lb, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
`, []got{{CodeSpecShape, "spec.to", SeverityError}}, []got{{CodeNoEffect, "spec", SeverityWarning}}},
		{"MeshRetry with an empty to", `apiVersion: kuma.io/v1alpha1
kind: MeshRetry
metadata: {name: retry, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  to: []
`, []got{{CodeSpecShape, "spec.to", SeverityError}}, []got{{CodeNoEffect, "spec", SeverityWarning}}},
		{"MeshTimeout rules matching a spiffeID", `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: mt, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  rules:
  - matches: [{spiffeID: {type: Exact, value: "spiffe://default/web"}}]
    default: {http: {requestTimeout: 5s}}
`, []got{{api.CodeUnknownField, "spec.rules[0].matches", SeverityWarning}}, nil}, // 2.13's CRD has no matches: the API server drops it (lint makes MG001 an error)
	} {
		for _, r := range []struct {
			version string
			want    []got
		}{{"2.13", tc.v213}, {"2.14", tc.v214}} {
			res := lintOne(t, tc.doc, releaseSettings(t, r.version), api.Request{})
			if d := cmp.Diff(r.want, reduceNoise(reduce(res))); d != "" {
				t.Errorf("%s, Kuma %s (-want +got):\n%s\nerrors: %v", tc.name, r.version, d, res.Errors)
			}
		}
	}
}

// reduceNoise drops the findings every policy of the cases above gets whatever the
// release (the origin, role and from deprecation notices), so the cases compare what
// the release decides.
func reduceNoise(in []got) []got {
	var out []got
	for _, g := range in {
		if g.Code == CodeToKind || g.Code == CodeSpecShape || g.Code == CodeNoEffect || g.Code == api.CodeUnknownField {
			out = append(out, g)
		}
	}
	return out
}

// TestKumaReleaseDataplane: Kuma 2.13's Dataplane validator wants an inbound (or a
// gateway) and kuma.io/service on every inbound; Kuma 2.14 accepts an outbound-only
// proxy and inbounds without tags.
func TestKumaReleaseDataplane(t *testing.T) {
	for _, tc := range []struct {
		name, doc  string
		v213, v214 []string
	}{
		{"outbounds only", `apiVersion: kuma.io/v1alpha1
kind: Dataplane
metadata: {name: dp-1, namespace: kuma-system, labels: {kuma.io/mesh: default}}
spec:
  networking:
    address: 192.168.0.1
    outbound: [{port: 3333, tags: {kuma.io/service: redis}}]
`, []string{"spec.networking"}, nil},
		{"an inbound without tags", `apiVersion: kuma.io/v1alpha1
kind: Dataplane
metadata: {name: dp-1, namespace: kuma-system, labels: {kuma.io/mesh: default}}
spec:
  networking:
    address: 192.168.0.1
    inbound: [{port: 8080}]
`, []string{`spec.networking.inbound[0].tags[kuma.io/service]`}, nil},
	} {
		for _, r := range []struct {
			version string
			want    []string
		}{{"2.13", tc.v213}, {"2.14", tc.v214}} {
			var fields []string
			for _, g := range errorsOnly(lintOne(t, tc.doc, releaseSettings(t, r.version), api.Request{})) {
				if g.Code == CodeDataplane {
					fields = append(fields, g.Field)
				}
			}
			if d := cmp.Diff(r.want, fields); d != "" {
				t.Errorf("%s, Kuma %s (-want +got):\n%s", tc.name, r.version, d)
			}
		}
	}
}

// TestKumaReleasePassthroughWildcard: Kuma 2.14 checks the host name after "*." in a
// MeshPassthrough Domain match; Kuma 2.13 skips every wildcard value (its suite's "full
// failing example" has no "*.hello@world" match, 2.14's refuses it).
func TestKumaReleasePassthroughWildcard(t *testing.T) {
	doc := `apiVersion: kuma.io/v1alpha1
kind: MeshPassthrough
metadata: {name: pt, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  default:
    appendMatch:
    - {type: Domain, value: "*.hello@world", port: 443, protocol: tls}
`
	for _, r := range []struct {
		version string
		want    []string
	}{{"2.13", nil}, {"2.14", []string{"spec.default.appendMatch[0].value"}}} {
		var fields []string
		for _, g := range errorsOnly(lintOne(t, doc, releaseSettings(t, r.version), api.Request{})) {
			fields = append(fields, g.Field)
		}
		if d := cmp.Diff(r.want, fields); d != "" {
			t.Errorf("Kuma %s (-want +got):\n%s", r.version, d)
		}
	}
}

// TestKumaReleaseMeshServiceSelectors: Kuma 2.14 refuses a MeshService with two kinds
// of selector; Kuma 2.13's validator has no such rule.
func TestKumaReleaseMeshServiceSelectors(t *testing.T) {
	doc := `apiVersion: kuma.io/v1alpha1
kind: MeshService
metadata: {name: backend, namespace: kuma-system, labels: {kuma.io/mesh: default}}
spec:
  selector:
    dataplaneTags: {app: backend}
    dataplaneLabels: {app: backend}
  ports: [{port: 80, appProtocol: http}]
`
	for _, r := range []struct {
		version string
		want    []string
	}{{"2.13", nil}, {"2.14", []string{"spec.selector"}}} {
		var fields []string
		for _, g := range errorsOnly(lintOne(t, doc, releaseSettings(t, r.version), api.Request{})) {
			fields = append(fields, g.Field)
		}
		if d := cmp.Diff(r.want, fields); d != "" {
			t.Errorf("Kuma %s (-want +got):\n%s", r.version, d)
		}
	}
}

// TestKumaReleaseOtelEndpoint: Kuma 2.13's OpenTelemetry backends are an endpoint
// alone: MeshTrace takes any endpoint, MeshMetric a URL without a scheme (and no
// port needed); Kuma 2.14 wants host:port, never a URL, and warns that the inline
// endpoint is deprecated.
func TestKumaReleaseOtelEndpoint(t *testing.T) {
	trace := func(ep string) string {
		return `apiVersion: kuma.io/v1alpha1
kind: MeshTrace
metadata: {name: tr, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  default:
    backends: [{type: OpenTelemetry, openTelemetry: {endpoint: "` + ep + `"}}]
`
	}
	metric := func(ep string) string {
		return `apiVersion: kuma.io/v1alpha1
kind: MeshMetric
metadata: {name: mm, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  default:
    backends: [{type: OpenTelemetry, openTelemetry: {endpoint: "` + ep + `"}}]
`
	}
	for _, tc := range []struct {
		name, doc  string
		v213, v214 []got
	}{
		{"MeshTrace endpoint with a scheme and path", trace("http://otel:4317/v1"), nil,
			[]got{{CodeOtelBackend, "spec.default.backends[0].openTelemetry.endpoint", SeverityError}}},
		{"MeshMetric endpoint without a port", metric("otel-collector.observability"), nil,
			[]got{{CodeOtelBackend, "spec.default.backends[0].openTelemetry.endpoint", SeverityError}}},
		{"MeshMetric endpoint that is no URL", metric("asdasd123"),
			[]got{{CodeOtelBackend, "spec.default.backends[0].openTelemetry.endpoint", SeverityError}},
			[]got{{CodeOtelBackend, "spec.default.backends[0].openTelemetry.endpoint", SeverityError}}},
		{"MeshMetric endpoint with a scheme", metric("http://endpoint:8023"),
			[]got{{CodeOtelBackend, "spec.default.backends[0].openTelemetry.endpoint", SeverityError}},
			[]got{{CodeOtelBackend, "spec.default.backends[0].openTelemetry.endpoint", SeverityError}}},
		{"MeshTrace endpoint host:port", trace("otel:4317"), nil,
			[]got{{CodeOtelEndpoint, "spec.default.backends[0].openTelemetry.endpoint", SeverityWarning}}},
	} {
		for _, r := range []struct {
			version string
			want    []got
		}{{"2.13", tc.v213}, {"2.14", tc.v214}} {
			var gotten []got
			for _, g := range reduce(lintOne(t, tc.doc, releaseSettings(t, r.version), api.Request{})) {
				if g.Code == CodeOtelBackend || g.Code == CodeOtelEndpoint {
					gotten = append(gotten, g)
				}
			}
			if d := cmp.Diff(r.want, gotten); d != "" {
				t.Errorf("%s, Kuma %s (-want +got):\n%s", tc.name, r.version, d)
			}
		}
	}
}

// TestKumaReleaseOtelAttributeKeys: Kuma 2.14 checks MeshAccessLog's OpenTelemetry
// attribute keys; Kuma 2.13 takes any.
func TestKumaReleaseOtelAttributeKeys(t *testing.T) {
	doc := `apiVersion: kuma.io/v1alpha1
kind: MeshAccessLog
metadata: {name: mal, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from:
  - targetRef: {kind: Mesh}
    default:
      backends:
      - type: OpenTelemetry
        openTelemetry:
          endpoint: otel:4317
          attributes: [{key: "my key", value: x}]
`
	for _, r := range []struct {
		version string
		want    []string
	}{{"2.13", nil}, {"2.14", []string{"spec.from[0].default.backends[0].openTelemetry.attributes[0].key"}}} {
		var fields []string
		for _, g := range errorsOnly(lintOne(t, doc, releaseSettings(t, r.version), api.Request{})) {
			if g.Code != api.CodeWrongType { // 2.14's CRD has a pattern for the key too
				fields = append(fields, g.Field)
			}
		}
		if d := cmp.Diff(r.want, fields); d != "" {
			t.Errorf("Kuma %s (-want +got):\n%s", r.version, d)
		}
	}
}

// TestKumaReleaseFromDeprecation: Kuma 2.14 warns that `from` is deprecated
// (MeshTrafficPermission MG190, the other kinds MG192); Kuma 2.13 does not.
func TestKumaReleaseFromDeprecation(t *testing.T) {
	mtp := `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: allow, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from: [{targetRef: {kind: Mesh}, default: {action: Allow}}]
`
	timeout := `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: mt, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from: [{targetRef: {kind: Mesh}, default: {idleTimeout: 20s}}]
`
	for _, r := range []struct {
		version string
		want    []string
	}{{"2.13", nil}, {"2.14", []string{CodeMTPFromDeprecated, CodeFromDeprecated}}} {
		var codes []string
		for _, doc := range []string{mtp, timeout} {
			for _, g := range reduce(lintOne(t, doc, releaseSettings(t, r.version), api.Request{})) {
				if g.Code == CodeMTPFromDeprecated || g.Code == CodeFromDeprecated {
					codes = append(codes, g.Code)
				}
			}
		}
		if d := cmp.Diff(r.want, codes); d != "" {
			t.Errorf("Kuma %s (-want +got):\n%s", r.version, d)
		}
	}
}
