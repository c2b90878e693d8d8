package validate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

// linkerdSettings are the default settings for Linkerd release version and Gateway
// API version gateway ("" for the release's own), with the CRDs loaded as every door
// loads them.
func linkerdSettings(t *testing.T, version, gateway string) api.Settings {
	t.Helper()
	s := api.DefaultSettings()
	s.LinkerdVersion, s.GatewayAPIVersion = version, gateway
	if err := schema.CheckSettings(s); err != nil {
		t.Fatal(err)
	}
	if err := schema.LoadInto(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// errorFields are the "CODE field" of res's errors.
func errorFields(res Result) []string {
	var out []string
	for _, g := range errorsOnly(res) {
		out = append(out, g.Code+" "+g.Field)
	}
	return out
}

// TestLinkerdReleaseDeltas: the objects whose admission verdict changed between
// Linkerd version-2.18, 2.19, 2.20 and edge-26.8.3 get each release's verdict under
// --linkerd-version (the Gateway API bundle fixed, so only the admission rules
// differ). Each case fails under one release without its release-aware rule.
func TestLinkerdReleaseDeltas(t *testing.T) {
	const gatewayTarget = `apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: ap, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}
  requiredAuthenticationRefs: [{group: policy.linkerd.io, kind: MeshTLSAuthentication, name: clients}]
`
	route := func(annotations, filter string) string {
		return `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: web
  namespace: shop
  annotations: {` + annotations + `}
spec:
  parentRefs: [{group: core, kind: Service, name: web, port: 80}]
  rules:
  - matches: [{path: {type: RegularExpression, value: "/(web"}}]
    filters: [` + filter + `]
    backendRefs: [{name: web, port: 80}]
`
	}
	const cors = `{type: CORS, cors: {allowOrigins: ["https://shop.example"]}}`
	for _, tc := range []struct {
		name, doc, gateway string
		want               map[string][]string // release → error "CODE field"s
	}{
		{"AuthorizationPolicy targeting a Gateway API HTTPRoute", gatewayTarget, "", map[string][]string{
			api.LinkerdV218: {CodeLinkerdPolicyTarget + " spec.targetRef.group"},
			api.LinkerdV219: nil, api.LinkerdV220: nil, api.LinkerdEdge: nil}},
		{"route with an accrual mode Linkerd does not have", route(`balancer.linkerd.io/failure-accrual: sometimes`, ""), "v1.2.1", map[string][]string{
			api.LinkerdV218: {CodeLinkerdRouteMatch + " spec.rules[0].matches[0].path.value", CodeLinkerdRouteAnnotation + " metadata.annotations[balancer.linkerd.io/failure-accrual]"},
			api.LinkerdV219: {CodeLinkerdRouteMatch + " spec.rules[0].matches[0].path.value", CodeLinkerdRouteAnnotation + " metadata.annotations[balancer.linkerd.io/failure-accrual]"},
			api.LinkerdV220: {CodeLinkerdRouteMatch + " spec.rules[0].matches[0].path.value"},
			api.LinkerdEdge: {CodeLinkerdRouteMatch + " spec.rules[0].matches[0].path.value"}}},
		{"route with a CORS filter (Gateway API v1.3)", route("", cors), "v1.3.0", map[string][]string{
			api.LinkerdV218: {CodeLinkerdRouteFilter + " spec.rules[0].filters[0].type"},
			api.LinkerdV219: {CodeLinkerdRouteFilter + " spec.rules[0].filters[0].type"},
			api.LinkerdV220: nil, // admitted unchecked: the relative path is not judged either
			api.LinkerdEdge: {CodeLinkerdRouteMatch + " spec.rules[0].matches[0].path.value"}}},
	} {
		for _, lv := range api.LinkerdReleases() {
			res := lintOne(t, tc.doc, linkerdSettings(t, lv, tc.gateway), api.Request{})
			if d := cmp.Diff(tc.want[lv], errorFields(res)); d != "" {
				t.Errorf("%s, Linkerd %s (-want +got):\n%s\nerrors: %v", tc.name, lv, d, res.Errors)
			}
		}
	}
}

// TestLinkerdAccrualAnnotations: under version-2.18 and 2.19 a route's accrual
// annotations are parsed as parse_accrual_config parses them.
func TestLinkerdAccrualAnnotations(t *testing.T) {
	for _, tc := range []struct {
		ann  string
		want []string
	}{
		{`balancer.linkerd.io/failure-accrual: consecutive`, nil},
		{`balancer.linkerd.io/failure-accrual: consecutive, balancer.linkerd.io/failure-accrual-consecutive-max-failures: "+7", balancer.linkerd.io/failure-accrual-consecutive-jitter-ratio: "1e1"`, nil},
		{`balancer.linkerd.io/failure-accrual-consecutive-max-failures: many`, nil}, // not read without the mode
		{`balancer.linkerd.io/failure-accrual: consecutive, balancer.linkerd.io/failure-accrual-consecutive-max-failures: "-1"`, []string{"failure-accrual-consecutive-max-failures"}},
		{`balancer.linkerd.io/failure-accrual: consecutive, balancer.linkerd.io/failure-accrual-consecutive-max-penalty: 1.5s`, []string{"failure-accrual-consecutive-max-penalty"}},
		{`balancer.linkerd.io/failure-accrual: consecutive, balancer.linkerd.io/failure-accrual-consecutive-min-penalty: 2m`, []string{"failure-accrual-consecutive-min-penalty"}}, // above the 60s default maximum
		{`balancer.linkerd.io/failure-accrual: consecutive, balancer.linkerd.io/failure-accrual-consecutive-max-penalty: "0", balancer.linkerd.io/failure-accrual-consecutive-min-penalty: "0"`, []string{"failure-accrual-consecutive-max-penalty"}},
		{`balancer.linkerd.io/failure-accrual: consecutive, balancer.linkerd.io/failure-accrual-consecutive-jitter-ratio: "101"`, []string{"failure-accrual-consecutive-jitter-ratio"}},
		{`balancer.linkerd.io/failure-accrual: consecutive, balancer.linkerd.io/failure-accrual-consecutive-jitter-ratio: NaN`, []string{"failure-accrual-consecutive-jitter-ratio"}},
		{`balancer.linkerd.io/failure-accrual: consecutive, balancer.linkerd.io/failure-accrual-consecutive-jitter-ratio: "0x1p-2"`, []string{"failure-accrual-consecutive-jitter-ratio"}},
	} {
		doc := `apiVersion: policy.linkerd.io/v1beta3
kind: HTTPRoute
metadata:
  name: web
  namespace: shop
  annotations: {` + tc.ann + `}
spec:
  parentRefs: [{group: core, kind: Service, name: web, port: 80}]
  rules: [{backendRefs: [{name: web, port: 80}]}]
`
		var fields []string
		for _, g := range errorsOnly(lintOne(t, doc, linkerdSettings(t, api.LinkerdV219, ""), api.Request{})) {
			fields = append(fields, g.Field[len("metadata.annotations[balancer.linkerd.io/"):len(g.Field)-1])
		}
		if d := cmp.Diff(tc.want, fields); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.ann, d)
		}
		if res := errorsOnly(lintOne(t, doc, linkerdSettings(t, api.LinkerdV220, ""), api.Request{})); len(res) > 0 {
			t.Errorf("%s: version-2.20 validates accrual on routes: %v", tc.ann, res)
		}
	}
}
