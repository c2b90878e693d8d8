package validate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
)

// shapingCase is one spec of a kind of this file and the MG150-MG154 findings it gives.
type shapingCase struct {
	name string
	spec string // YAML of spec, indented by two spaces
	want []got
}

// shapingFindings lints a system-namespace policy and keeps the findings of codes
// MG150-MG154 and of the kind tables of the shared rules (where those already
// report a field, the kind's rule stays silent), so that the other shared findings
// do not blur the cases.
func shapingFindings(t *testing.T, kind, spec string) []got {
	t.Helper()
	doc := "apiVersion: kuma.io/v1alpha1\nkind: " + kind + "\nmetadata: {name: x, namespace: kuma-system}\nspec:\n" + spec
	var out []got
	for _, g := range reduce(lintOne(t, doc, api.DefaultSettings(), api.Request{})) {
		if g.Code >= CodeFaultInjectionConf && g.Code <= CodeMeshTLSConf || g.Code == CodeToKind {
			out = append(out, g)
		}
	}
	return out
}

func runShapingCases(t *testing.T, kind string, cases []shapingCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, shapingFindings(t, kind, tc.spec)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func shapingErr(code string, fields ...string) []got {
	out := make([]got, len(fields))
	for i, f := range fields {
		out[i] = got{code, f, SeverityError}
	}
	return out
}

// fiFrom is a sidecar MeshFaultInjection with one `from` item whose http list is
// faults (flow YAML).
func fiFrom(faults string) string {
	return "  targetRef: {kind: Dataplane, labels: {app: web}}\n  from:\n    - targetRef: {kind: Mesh}\n      default: {http: " + faults + "}\n"
}

func TestMeshFaultInjectionConf(t *testing.T) {
	c := func(f ...string) []got { return shapingErr(CodeFaultInjectionConf, f...) }
	const h = "spec.from[0].default.http"
	runShapingCases(t, "MeshFaultInjection", []shapingCase{
		{"valid", fiFrom(`[{abort: {httpStatus: 503, percentage: 50}}, {delay: {value: 5s, percentage: "12.5"}}, {responseBandwidth: {limit: 10kbps, percentage: 100}}]`), nil},
		{"status out of range", fiFrom(`[{abort: {httpStatus: 600, percentage: 50}}]`), c(h + "[0].abort.httpStatus")},
		{"status absent", fiFrom(`[{abort: {percentage: 50}}]`), c(h + "[0].abort.httpStatus")},
		{"percentage above 100", fiFrom(`[{abort: {httpStatus: 503, percentage: 101}}]`), c(h + "[0].abort.percentage")},
		{"percentage not a number", fiFrom(`[{delay: {value: 1s, percentage: "half"}}]`), c(h + "[0].delay.percentage")},
		{"percentage zero allowed", fiFrom(`[{delay: {value: 1s, percentage: 0}}]`), nil},
		{"negative delay", fiFrom(`[{delay: {value: -1s, percentage: 5}}]`), c(h + "[0].delay.value")},
		{"delay not a duration", fiFrom(`[{delay: {value: soon, percentage: 5}}]`), c(h + "[0].delay.value")},
		{"bandwidth without unit", fiFrom(`[{responseBandwidth: {limit: "1000", percentage: 5}}]`), c(h + "[0].responseBandwidth.limit")},
		{"bandwidth absent", fiFrom(`[{responseBandwidth: {percentage: 5}}]`), c(h + "[0].responseBandwidth.limit")},
		{"rules checked", "  targetRef: {kind: Dataplane, labels: {app: web}}\n  rules:\n    - default: {http: [{abort: {httpStatus: 99, percentage: 1}}]}\n",
			c("spec.rules[0].default.http[0].abort.httpStatus")},
		{"from with gateways is not checked", "  targetRef: {kind: Mesh}\n  from:\n    - targetRef: {kind: Mesh}\n      default: {http: [{abort: {httpStatus: 1, percentage: 1}}]}\n", nil},
		{"from with sidecars only", "  targetRef: {kind: Mesh, proxyTypes: [Sidecar]}\n  from:\n    - targetRef: {kind: Mesh}\n      default: {http: [{abort: {httpStatus: 1, percentage: 1}}]}\n", c("spec.from[0].default.http[0].abort.httpStatus")},
		{"to without gateways is not checked", "  targetRef: {kind: Dataplane, labels: {app: web}}\n  to:\n    - targetRef: {kind: Mesh}\n      default: {http: [{abort: {httpStatus: 1, percentage: 1}}]}\n", nil},
		{"to on a gateway", "  targetRef: {kind: MeshGateway, name: edge}\n  to:\n    - targetRef: {kind: Mesh}\n      default: {http: [{abort: {httpStatus: 1, percentage: 1}}]}\n", c("spec.to[0].default.http[0].abort.httpStatus")},
	})
}

func TestMeshTLSConf(t *testing.T) {
	c := func(f ...string) []got { return shapingErr(CodeMeshTLSConf, f...) }
	from := func(top, def string) string {
		return top + "  from:\n    - targetRef: {kind: Mesh}\n      default: " + def + "\n"
	}
	const dp = "  targetRef: {kind: Dataplane, labels: {app: web}}\n"
	runShapingCases(t, "MeshTLS", []shapingCase{
		{"valid mesh-wide", from("", `{tlsVersion: {min: TLS12, max: TLS13}, tlsCiphers: [ECDHE-RSA-AES128-GCM-SHA256], mode: Strict}`), nil},
		{"auto bounds", from("", `{tlsVersion: {min: TLS13, max: TLSAuto}}`), nil},
		{"min above max", from("", `{tlsVersion: {min: TLS13, max: TLS12}}`), c("spec.from[0].default.tlsVersion.min")},
		{"version on a dataplane", from(dp, `{tlsVersion: {min: TLS12}}`), c("spec.from[0].default.tlsVersion")},
		{"ciphers on a dataplane", from(dp, `{tlsCiphers: [ECDHE-RSA-AES128-GCM-SHA256]}`), c("spec.from[0].default.tlsCiphers")},
		{"mode on a dataplane", from(dp, `{mode: Permissive}`), nil},
		{"rules checked", dp + "  rules:\n    - default: {tlsVersion: {min: TLS12}}\n", c("spec.rules[0].default.tlsVersion")},
	})
}

func TestMeshPassthroughConf(t *testing.T) {
	c := func(f ...string) []got { return shapingErr(CodePassthroughConf, f...) }
	pt := func(matches string) string {
		return "  targetRef: {kind: Mesh}\n  default: {passthroughMode: Matched, appendMatch: " + matches + "}\n"
	}
	const m = "spec.default.appendMatch"
	runShapingCases(t, "MeshPassthrough", []shapingCase{
		{"valid", pt(`[{type: Domain, value: api.example.com, protocol: http, port: 80}, {type: Domain, value: "*.example.com", port: 443, protocol: tls}, {type: IP, value: 10.0.0.1}, {type: CIDR, value: "fd00::/8", port: 5432, protocol: mysql}, {type: Domain, value: "*", port: 443, protocol: tls}]`), nil},
		{"bad IP", pt(`[{type: IP, value: 10.0.0.300}]`), c(m + "[0].value")},
		{"bad CIDR", pt(`[{type: CIDR, value: 10.0.0.0/33}]`), c(m + "[0].value")},
		{"bad domain", pt(`[{type: Domain, value: "exa mple.com", protocol: tls}]`), c(m + "[0].value")},
		{"IP as domain", pt(`[{type: Domain, value: 10.0.0.1, protocol: tls}]`), c(m + "[0].value")},
		{"partial wildcard", pt(`[{type: Domain, value: "*w.example.com", protocol: tls}]`), c(m + "[0].value")},
		{"domain with tcp (the default)", pt(`[{type: Domain, value: example.com}]`), c(m + "[0].protocol")},
		{"domain with mysql", pt(`[{type: Domain, value: example.com, protocol: mysql, port: 3306}]`), c(m + "[0].protocol")},
		{"mysql without port", pt(`[{type: IP, value: 10.0.0.1, protocol: mysql}]`), c(m + "[0].port")},
		{"port out of range", pt(`[{type: IP, value: 10.0.0.1, port: 70000}]`), c(m + "[0].port")},
		{"port zero", pt(`[{type: IP, value: 10.0.0.1, port: 0}]`), c(m + "[0].port")},
		{"two L7 protocols on a port", pt(`[{type: Domain, value: a.com, port: 80, protocol: http}, {type: Domain, value: b.com, port: 80, protocol: grpc}]`), c(m + "[1].port")},
		{"tls and http on a port", pt(`[{type: Domain, value: a.com, port: 80, protocol: http}, {type: Domain, value: b.com, port: 80, protocol: tls}]`), nil},
		{"duplicate value", pt(`[{type: Domain, value: a.com, port: 80, protocol: http}, {type: Domain, value: a.com, port: 80, protocol: http}]`), c(m + "[1].value")},
		{"L7 wildcard without port", pt(`[{type: Domain, value: "*.a.com", protocol: http}]`), c(m + "[0].port")},
	})
}
