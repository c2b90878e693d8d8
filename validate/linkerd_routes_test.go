package validate

import (
	"reflect"
	"testing"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

// linkerdSchemas are the default settings with the CRDs loaded, for the tests that
// want the schema layer as every door runs it.
func linkerdSchemas() (api.Settings, error) {
	s := api.DefaultSettings()
	err := schema.LoadInto(&s)
	return s, err
}

// TestLinkerdRouteRules: each rule of the kinds issue 16 added, with a manifest
// Linkerd admits and one it rejects, with and without Linkerd's CRDs loaded.
func TestLinkerdRouteRules(t *testing.T) {
	const meta = "metadata:\n  name: x\n  namespace: web\n"
	lk := func(v, kind string) string {
		return "apiVersion: policy.linkerd.io/" + v + "\nkind: " + kind + "\n" + meta + "spec:\n"
	}
	gw := func(v, kind string) string {
		return "apiVersion: gateway.networking.k8s.io/" + v + "\nkind: " + kind + "\n" + meta + "spec:\n"
	}
	gwAnn := func(ann string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n" + meta + "  annotations:\n    " + ann + "\nspec:\n"
	}
	const (
		svc    = "  parentRefs:\n    - {group: core, kind: Service, name: web, port: 80}\n"
		server = "  parentRefs:\n    - {group: policy.linkerd.io, kind: Server, name: web}\n"
		egress = "  parentRefs:\n    - {group: policy.linkerd.io, kind: EgressNetwork, name: out}\n"
		gwOnly = "  parentRefs:\n    - {name: public-gateway}\n"
		rl     = "  targetRef: {group: policy.linkerd.io, kind: Server, name: web}\n"
		oneTCP = "  rules:\n    - backendRefs: [{name: db, port: 5432}]\n"
		twoTCP = oneTCP + "    - backendRefs: [{name: db2, port: 5432}]\n"
	)
	e := func(code, f string) []got { return []got{{code, f, SeverityError}} }
	cases := []struct {
		name string
		doc  string
		want []got
	}{
		{"egress networks absent", lk("v1alpha1", "EgressNetwork") + "  trafficPolicy: Deny\n", nil},
		{"egress networks empty", lk("v1alpha1", "EgressNetwork") + "  trafficPolicy: Deny\n  networks: []\n", e(CodeLinkerdEgressNetwork, "spec.networks")},
		{"egress except outside", lk("v1alpha1", "EgressNetwork") + "  trafficPolicy: Deny\n  networks:\n    - {cidr: 10.0.0.0/16, except: [10.1.0.0/24]}\n",
			e(CodeLinkerdNetwork, "spec.networks[0].except[0]")},
		{"rate limit ok", lk("v1alpha1", "HTTPLocalRateLimitPolicy") + rl + "  total: {requestsPerSecond: 10}\n  identity: {requestsPerSecond: 10}\n", nil},
		{"rate limit targets a Deployment", lk("v1alpha1", "HTTPLocalRateLimitPolicy") + "  targetRef: {group: apps, kind: Deployment, name: web}\n",
			e(CodeLinkerdRateLimit, "spec.targetRef.kind")},
		{"rate limit zero total", lk("v1alpha1", "HTTPLocalRateLimitPolicy") + rl + "  total: {requestsPerSecond: 0}\n", e(CodeLinkerdRateLimit, "spec.total.requestsPerSecond")},
		{"rate limit identity above total", lk("v1alpha1", "HTTPLocalRateLimitPolicy") + rl + "  total: {requestsPerSecond: 10}\n  identity: {requestsPerSecond: 20}\n",
			e(CodeLinkerdRateLimit, "spec.identity.requestsPerSecond")},
		{"rate limit override above total and not a ServiceAccount", lk("v1alpha1", "HTTPLocalRateLimitPolicy") + rl + "  total: {requestsPerSecond: 10}\n" +
			"  overrides:\n    - requestsPerSecond: 20\n      clientRefs: [{kind: Namespace, name: x}]\n",
			[]got{{CodeLinkerdRateLimit, "spec.overrides[0].clientRefs[0].kind", SeverityError}, {CodeLinkerdRateLimit, "spec.overrides[0].requestsPerSecond", SeverityError}}},
		{"route egress parent with port", lk("v1beta3", "HTTPRoute") + "  parentRefs:\n    - {group: policy.linkerd.io, kind: EgressNetwork, name: out, port: 443}\n", nil},
		{"route egress parent without port", lk("v1beta3", "HTTPRoute") + egress, e(CodeLinkerdRouteParent, "spec.parentRefs[0].port")},
		{"route relative path", lk("v1beta2", "HTTPRoute") + server + "  rules:\n    - matches: [{path: {value: api}}]\n", e(CodeLinkerdRouteMatch, "spec.rules[0].matches[0].path.value")},
		{"route regex path", lk("v1beta3", "HTTPRoute") + server + "  rules:\n    - matches: [{path: {type: RegularExpression, value: \"/a(\"}}]\n",
			e(CodeLinkerdRouteMatch, "spec.rules[0].matches[0].path.value")},
		{"route relative redirect", lk("v1beta1", "HTTPRoute") + server + "  rules:\n    - filters:\n        - type: RequestRedirect\n          requestRedirect: {path: {type: ReplacePrefixMatch, replacePrefixMatch: v2}}\n",
			e(CodeLinkerdRouteFilter, "spec.rules[0].filters[0].requestRedirect.path.replacePrefixMatch")},
		{"route timeouts ok", lk("v1beta3", "HTTPRoute") + server + "  rules:\n    - timeouts: {request: 10s, backendRequest: 5s}\n", nil},
		{"route backend timeout above request", lk("v1beta3", "HTTPRoute") + server + "  rules:\n    - timeouts: {request: 1s, backendRequest: 2s}\n",
			e(CodeLinkerdRouteTimeouts, "spec.rules[0].timeouts.backendRequest")},
		{"gateway route to Service backend with port", gw("v1", "HTTPRoute") + svc + "  rules:\n    - backendRefs: [{name: web, port: 80}]\n", nil},
		{"gateway route to Service backend without port", gw("v1", "HTTPRoute") + server + "  rules:\n    - backendRefs: [{group: core, kind: Service, name: web}]\n", e(CodeLinkerdRouteBackend, "spec.rules[0].backendRefs[0].port")},
		{"gateway route to another kind without port", gw("v1", "HTTPRoute") + server + "  rules:\n    - backendRefs: [{group: example.com, kind: Bucket, name: web}]\n", nil},
		{"gateway route of another gateway is left alone", gw("v1", "HTTPRoute") + gwOnly + "  rules:\n    - backendRefs: [{name: web}]\n", nil},
		{"grpc regex method", gw("v1", "GRPCRoute") + svc + "  rules:\n    - matches: [{method: {type: RegularExpression, service: \"a.*\"}}]\n      backendRefs: [{name: web, port: 80}]\n",
			e(CodeLinkerdRouteMatch, "spec.rules[0].matches[0].method.type")},
		{"tcp one rule", gw("v1alpha2", "TCPRoute") + svc + oneTCP, nil},
		{"tcp two rules", gw("v1alpha2", "TCPRoute") + svc + twoTCP, e(CodeLinkerdRouteRules, "spec.rules")},
		{"tls two rules", gw("v1alpha2", "TLSRoute") + svc + twoTCP, e(CodeLinkerdRouteRules, "spec.rules")},
		{"Service parent without a group is defaulted to the Gateway API group: not Linkerd's", gw("v1alpha2", "TLSRoute") + "  parentRefs:\n    - {kind: Service, name: web, port: 80}\n" + twoTCP, nil},
		{"EgressNetwork parent without a group on Linkerd's HTTPRoute is defaulted to policy.linkerd.io", lk("v1beta3", "HTTPRoute") + "  parentRefs:\n    - {kind: EgressNetwork, name: out}\n",
			e(CodeLinkerdRouteParent, "spec.parentRefs[0].port")},
		{"EgressNetwork parent without a group on a Gateway API route is not an EgressNetwork", gw("v1", "HTTPRoute") + server + "    - {kind: EgressNetwork, name: out}\n", nil},
		{"tls of another gateway", gw("v1alpha2", "TLSRoute") + gwOnly + twoTCP, nil},
		{"timeout annotation ok", gwAnn("timeout.linkerd.io/request: 10s") + svc, nil},
		{"timeout annotation fraction", gwAnn("timeout.linkerd.io/request: 1.5s") + svc, e(CodeLinkerdRouteAnnotation, "metadata.annotations[timeout.linkerd.io/request]")},
		{"retry condition", gwAnn("retry.linkerd.io/http: 5xx,429,500-504") + svc, nil},
		{"retry condition unknown", gwAnn("retry.linkerd.io/http: 5xx,teapot") + svc, e(CodeLinkerdRouteAnnotation, "metadata.annotations[retry.linkerd.io/http]")},
		{"annotations of an inbound route are not parsed", gwAnn("retry.linkerd.io/limit: lots") + server, nil},
	}
	withCRDs, err := linkerdSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		for _, s := range []struct {
			name string
			s    api.Settings
		}{{"no schema", api.Settings{}}, {"with CRDs", withCRDs}} {
			t.Run(tc.name+"/"+s.name, func(t *testing.T) {
				if g := errorsOnly(lintOne(t, tc.doc, s.s, api.Request{})); !reflect.DeepEqual(g, tc.want) {
					t.Errorf("got %+v\nwant %+v", g, tc.want)
				}
			})
		}
	}
}

// TestRateLimitWithoutTarget: the CRD requires targetRef (MG002); without the schema
// layer the rule says so itself, so the finding never goes missing.
func TestRateLimitWithoutTarget(t *testing.T) {
	doc := "apiVersion: policy.linkerd.io/v1alpha1\nkind: HTTPLocalRateLimitPolicy\nmetadata:\n  name: x\n  namespace: web\nspec:\n  total: {requestsPerSecond: 10}\n"
	withCRDs, err := linkerdSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s    api.Settings
		want []got
	}{
		{api.Settings{}, []got{{CodeLinkerdRateLimit, "spec.targetRef", SeverityError}}},
		{withCRDs, []got{{api.CodeWrongType, "spec.targetRef", SeverityError}}},
	} {
		if g := errorsOnly(lintOne(t, doc, tc.s, api.Request{})); !reflect.DeepEqual(g, tc.want) {
			t.Errorf("got %+v\nwant %+v", g, tc.want)
		}
	}
}

// TestLinkerdDurations uses the vectors of Linkerd's own parse_duration tests.
func TestLinkerdDurations(t *testing.T) {
	for _, ok := range []string{"0", "0s", "0ms", "100ms", "5m", "2h", "1d", " 3s ", "18446744073709551ms"} {
		if msg := linkerdDurationError(ok); msg != "" {
			t.Errorf("%q: %s", ok, msg)
		}
	}
	for _, bad := range []string{"1", "1.5s", "0.0s", "1.5m", "-1s", "-0.5s", "", "5x", "ms", "99999999999999999999s", "18446744073709551615d", "1 s"} {
		if linkerdDurationError(bad) == "" {
			t.Errorf("%q accepted", bad)
		}
	}
}
