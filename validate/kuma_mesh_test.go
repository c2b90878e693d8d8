package validate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
)

func TestMeshRules(t *testing.T) {
	m := func(spec string) string { return res("Mesh", "default", "", spec) }
	ca := func(backends string) string {
		return m("  mtls:\n    enabledBackend: ca-1\n    backends:\n" + backends)
	}
	prom := func(conf string) string {
		return m("  metrics:\n    enabledBackend: prom\n    backends:\n      - name: prom\n        type: prometheus\n        conf:\n" + conf)
	}
	runResourceCases(t, []resourceCase{
		{"empty", m("  {}\n"), "", nil},
		{"builtin CA", ca("      - name: ca-1\n        type: builtin\n        dpCert:\n          rotation:\n            expiration: 1d\n        conf:\n          caCert:\n            RSAbits: 2048\n            expiration: 10y\n"), "", nil},
		{"two CAs, one name", ca("      - name: ca-1\n        type: builtin\n      - name: ca-1\n        type: builtin\n"), "",
			[]got{e(CodeMesh, "spec.mtls.backends"), e(CodeMesh, "spec.mtls.backends[1].name")}},
		{"enabled backend unknown", ca("      - name: ca-2\n        type: builtin\n"), "", []got{e(CodeMesh, "spec.mtls.enabledBackend")}},
		{"rotation", ca("      - name: ca-1\n        type: builtin\n        dpCert:\n          rotation:\n            expiration: 1.5h\n"), "", []got{e(CodeMesh, "spec.mtls.backends[0].dpCert.rotation.expiration")}},
		{"no such plugin", ca("      - name: ca-1\n        type: vault\n"), "", []got{e(CodeMesh, "spec.mtls.backends[0].type")}},
		{"builtin CA secret name", ca("      - name: CA_1\n        type: builtin\n"), "", []got{e(CodeMesh, "spec.mtls.backends[0].name"), e(CodeMesh, "spec.mtls.enabledBackend")}},
		{"provided CA needs cert and key", ca("      - name: ca-1\n        type: provided\n        conf:\n          cert: {secret: \"\"}\n"), "",
			[]got{e(CodeMesh, "spec.mtls.backends[0].conf.cert.secret"), e(CodeMesh, "spec.mtls.backends[0].conf.key")}},
		{"skipValidation", m("  mtls:\n    enabledBackend: ca-1\n    skipValidation: true\n    backends:\n      - name: ca-1\n        type: provided\n"), "", nil},
		{"request timeouts", ca("      - name: ca-1\n        type: builtin\n        dpCert:\n          rotation: {expiration: 1d}\n          requestTimeout: 1m\n        rootChain:\n          requestTimeout: 0.5s\n"), "",
			[]got{e(CodeMesh, "spec.mtls.backends[0].dpCert.requestTimeout")}},
		{"sampling as a string", m("  tracing:\n    backends:\n      - name: z\n        type: zipkin\n        sampling: \"50.5\"\n        conf: {url: \"http://zipkin:9411/api/v2/spans\"}\n"), "", nil},
		{"mode enum", ca("      - name: ca-1\n        type: builtin\n        mode: LENIENT\n"), "", []got{e(CodeMesh, "spec.mtls.backends[0].mode")}},
		{"logging", m("  logging:\n    defaultBackend: nope\n    backends:\n      - name: f\n        type: file\n      - type: tcp\n        conf: {address: kibana}\n      - name: f\n        type: syslog\n"), "",
			[]got{e(CodeMesh, "spec.logging.backends[0].conf.path"), e(CodeMesh, "spec.logging.backends[1].conf.address"), e(CodeMesh, "spec.logging.backends[1].name"),
				e(CodeMesh, "spec.logging.backends[2].name"), e(CodeMesh, "spec.logging.backends[2].type"), e(CodeMesh, "spec.logging.defaultBackend")}},
		{"good logging", m("  logging:\n    defaultBackend: tcp\n    backends:\n      - name: tcp\n        type: tcp\n        conf: {address: \"kibana:5000\"}\n"), "", nil},
		{"tracing", m("  tracing:\n    backends:\n      - name: z\n        type: zipkin\n        sampling: 101\n        conf: {url: \"http://zipkin/api\", apiVersion: v3}\n      - name: d\n        type: datadog\n        conf: {port: 0}\n"), "",
			[]got{e(CodeMesh, "spec.tracing.backends[0].conf.apiVersion"), e(CodeMesh, "spec.tracing.backends[0].conf.url"), e(CodeMesh, "spec.tracing.backends[0].sampling"),
				e(CodeMesh, "spec.tracing.backends[1].conf.address"), e(CodeMesh, "spec.tracing.backends[1].conf.port")}},
		{"good tracing", m("  tracing:\n    defaultBackend: z\n    backends:\n      - name: z\n        type: zipkin\n        conf: {url: \"http://zipkin:9411/api/v2/spans\"}\n"), "", nil},
		{"prometheus good", prom("          skipMTLS: true\n          tls: {mode: providedTLS}\n          envoy: {filterRegex: \"^cluster\"}\n"), "", nil},
		{"prometheus disagreeing", prom("          skipMTLS: true\n          tls: {mode: activeMTLSBackend}\n"), "", []got{e(CodeMesh, "spec.metrics.backends[0].conf")}},
		{"prometheus regex and aggregates", prom("          envoy: {filterRegex: \"(\"}\n"), "", []got{e(CodeMesh, "spec.metrics.backends[0].conf.envoy.filterRegex")}},
		{"prometheus aggregates", prom("          aggregate: [{name: a, port: 1}, {name: a, port: 2}]\n"), "", []got{e(CodeMesh, "spec.metrics.backends[0].conf.aggregate[1].name")}},
		{"prometheus conf of the wrong type", prom("          port: [1]\n"), "", []got{e(CodeMesh, "spec.metrics.backends[0].conf")}},
		{"constraints", m("  constraints:\n    dataplaneProxy:\n      requirements:\n        - tags: {}\n      restrictions:\n        - tags: {kuma.io/zone: \"*\"}\n"), "",
			[]got{e(CodeMesh, "spec.constraints.dataplaneProxy.requirements[0].tags")}},
		{"zone egress needs mTLS", m("  routing:\n    zoneEgress: true\n"), "", []got{e(CodeMesh, "spec.mtls")}},
		{"meshServices mode", m("  meshServices:\n    mode: Sometimes\n"), "", []got{e(CodeMesh, "spec.meshServices.mode")}},
		{"meshServices mode by number", m("  meshServices:\n    mode: 3\n"), "", nil},
		{"wrong type", m("  mtls: yes\n"), "", []got{e(CodeMesh, "spec")}},
		{"unknown fields are ignored by Kuma", m("  mtls:\n    enabledbackend: ca-1\n    backends:\n      - name: ca-1\n        type: builtin\n        rotation: {}\n  routing:\n    zoneEgres: true\n"), "",
			[]got{w(api.CodeUnknownField, "spec.mtls.backends[0].rotation"), w(api.CodeUnknownField, "spec.mtls.enabledbackend"), w(api.CodeUnknownField, "spec.routing.zoneEgres")}},
		{"name too long", res("Mesh", strings.Repeat("m", 64), "", "  {}\n"), "", []got{e(CodeMesh, "metadata.name")}},
		{"dotted name warns", res("Mesh", "prod.eu", "", "  {}\n"), "", []got{w(CodeMesh, "metadata.name")}},
		{"read-only on a zone", m("  {}\n"), api.ModeZone, []got{e(CodeResourceAdmission, "kind")}},
	})
}

// TestMeshCAChange covers Kuma's Mesh webhook on UPDATE: the enabled CA cannot change
// while mTLS stays on, and the name is not checked again.
func TestMeshCAChange(t *testing.T) {
	mesh := func(name, enabled string) string {
		return res("Mesh", name, "", "  mtls:\n    enabledBackend: "+enabled+"\n    backends:\n      - name: ca-1\n        type: builtin\n      - name: ca-2\n        type: builtin\n")
	}
	s := settings(api.ModeStandalone, "")
	for _, c := range []struct {
		name, old, new string
		want           []got
	}{
		{"CA changed while on", mesh("default", "ca-1"), mesh("default", "ca-2"), []got{e(CodeMesh, "spec.mtls.backends"), e(CodeMesh, "spec.mtls.enabledBackend")}},
		{"CA unchanged", mesh("default", "ca-1"), mesh("default", "ca-1"), []got{e(CodeMesh, "spec.mtls.backends")}},
		{"long name on update", mesh(strings.Repeat("m", 64), "ca-1"), mesh(strings.Repeat("m", 64), "ca-1"),
			// the name is not checked on UPDATE, but the builtin CAs' secret names are
			[]got{e(CodeMesh, "spec.mtls.backends"), e(CodeMesh, "spec.mtls.backends[0].name"), e(CodeMesh, "spec.mtls.backends[1].name")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := lintOne(t, c.new, s, api.Request{Operation: api.OpUpdate, Old: mustObj(t, c.old)})
			if diff := cmp.Diff(c.want, errorsOnly(r)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
