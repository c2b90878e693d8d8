package validate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
)

// res builds a manifest of a Kuma resource kind; ns "" leaves the namespace out
// (cluster-scoped kinds), labels are extra label lines.
func res(kind, name, ns, spec string, labels ...string) string {
	var b strings.Builder
	b.WriteString("apiVersion: kuma.io/v1alpha1\nkind: " + kind + "\nmetadata:\n  name: " + name + "\n")
	if ns != "" {
		b.WriteString("  namespace: " + ns + "\n")
	}
	if len(labels) > 0 {
		b.WriteString("  labels:\n")
		for _, l := range labels {
			b.WriteString("    " + l + "\n")
		}
	}
	b.WriteString("spec:\n" + spec)
	return b.String()
}

type resourceCase struct {
	name string
	doc  string
	mode api.Mode
	want []got
}

func runResourceCases(t *testing.T, cases []resourceCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mode, zone := c.mode, ""
			if mode == "" {
				mode = api.ModeStandalone
			}
			if mode == api.ModeZone {
				zone = "zone-1"
			}
			s := settings(mode, zone)
			s.SystemNamespace = "kuma-system"
			r := lintOne(t, c.doc, s, api.Request{})
			if diff := cmp.Diff(c.want, reduce(r)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func e(code, field string) got { return got{Code: code, Field: field, Severity: SeverityError} }
func w(code, field string) got { return got{Code: code, Field: field, Severity: SeverityWarning} }

const ks = "kuma-system"

func TestMeshServiceRules(t *testing.T) {
	ms := func(name, spec string) string { return res("MeshService", name, ks, spec) }
	runResourceCases(t, []resourceCase{
		{"one selector", ms("redis", msGood), "", nil},
		{"no spec at all", ms("redis", "  {}\n"), "", nil},
		{"two selectors", ms("redis", "  selector:\n    dataplaneTags: {app: redis}\n    dataplaneLabels:\n      matchLabels: {app: redis}\n"), "", []got{e(CodeMeshService, "spec.selector")}},
		{"mesh label checked", res("MeshService", "redis", ks, msGood, "kuma.io/mesh: Not_A_Mesh!"), "", []got{e(CodeMeshName, "metadata.labels[kuma.io/mesh]")}},
		{"name too long", ms(strings.Repeat("r", 64), "  {}\n"), "", []got{e(CodeMeshService, "metadata.name")}},
		{"name of 63", ms(strings.Repeat("r", 63), "  {}\n"), "", nil},
		{"dotted port name warns", ms("redis", "  ports:\n    - name: bad.port\n      port: 80\n"), "", []got{w(CodeMeshService, "spec.ports[0]")}},
		{"dotted name warns twice", ms("re.dis", "  ports:\n    - port: 80\n"), "", []got{w(CodeMeshService, "metadata.name"), w(CodeMeshService, "spec.ports[0]")}},
		{"SNI too long warns", res("MeshService", strings.Repeat("s", 63), strings.Repeat("n", 63), "  ports:\n    - name: "+strings.Repeat("p", 63)+"\n      port: 80\n", "kuma.io/zone: "+strings.Repeat("z", 63)),
			"", []got{w(CodeMeshService, "spec.ports[0]")}},
		{"read-only on global", ms("redis", msGood), api.ModeGlobal, []got{e(CodeResourceAdmission, "kind")}},
		{"created on a zone", strings.Replace(ms("redis", msGood), ks, "payments", 1), api.ModeZone, nil},
	})
}

func TestMeshExternalServiceRules(t *testing.T) {
	mes := func(spec string) string { return res("MeshExternalService", "httpbin", ks, spec) }
	ep := "  match:\n    port: 443\n  endpoints:\n    - address: %s\n      port: %s\n"
	runResourceCases(t, []resourceCase{
		{"good", mes(mesGood), "", nil},
		{"defaults for type and protocol", mes("  match:\n    port: 80\n"), "", nil},
		{"unknown type and protocol, port 0", mes("  match:\n    type: Other\n    port: 0\n    protocol: udp\n"), "",
			[]got{e(CodeMeshExternalService, "spec.match.port"), e(CodeMeshExternalService, "spec.match.protocol"), e(CodeMeshExternalService, "spec.match.type")}},
		{"IP endpoint", mes(fmtS(ep, "1.1.1.1", "443")), "", nil},
		{"URL is no address", mes(fmtS(ep, "https://x.org", "443")), "", []got{e(CodeMeshExternalService, "spec.endpoints[0].address")}},
		{"port out of range", mes(fmtS(ep, "x.org", "70000")), "", []got{e(CodeMeshExternalService, "spec.endpoints[0].port")}},
		{"extension takes endpoints over", mes("  match:\n    port: 443\n  extension:\n    type: ext\n  endpoints:\n    - address: \"::bad\"\n      port: 0\n"), "", nil},
		{"extension without type", mes("  match:\n    port: 443\n  extension:\n    config: {}\n"), "", []got{e(CodeMeshExternalService, "spec.extension.type")}},
		{"tls versions reversed", mes("  match:\n    port: 443\n  tls:\n    version: {min: TLS13, max: TLS12}\n"), "", []got{e(CodeMeshExternalService, "spec.tls.version.min")}},
		{"TLSAuto is no bound", mes("  match:\n    port: 443\n  tls:\n    version: {min: TLS13, max: TLSAuto}\n"), "", nil},
		{"verification", mes("  match:\n    port: 443\n  tls:\n    verification:\n      serverName: \"a b\"\n      mode: Never\n      subjectAltNames: [{type: Regex, value: x}]\n      clientKey: {secret: k}\n"), "",
			[]got{e(CodeMeshExternalService, "spec.tls.verification.clientCert"), e(CodeMeshExternalService, "spec.tls.verification.mode"),
				e(CodeMeshExternalService, "spec.tls.verification.serverName"), e(CodeMeshExternalService, "spec.tls.verification.subjectAltNames[0].type")}},
		{"SAN type defaults to Exact", mes("  match:\n    port: 443\n  tls:\n    verification:\n      subjectAltNames: [{value: x.org}]\n"), "", nil},
		{"cert without key", mes("  match:\n    port: 443\n  tls:\n    verification:\n      clientCert: {secret: c}\n"), "", []got{e(CodeMeshExternalService, "spec.tls.verification.clientKey")}},
		{"system namespace only", strings.Replace(mes(mesGood), ks, "payments", 1), "", []got{e(CodeResourceAdmission, "metadata.namespace")}},
		{"zone label with a dot warns", res("MeshExternalService", "httpbin", ks, mesGood, "kuma.io/zone: east.1"), "", []got{w(CodeMeshExternalService, "spec.match.port")}},
	})
}

func fmtS(f string, a ...string) string {
	for _, x := range a {
		f = strings.Replace(f, "%s", x, 1)
	}
	return f
}

func TestMeshMultiZoneServiceRules(t *testing.T) {
	mz := func(spec string) string { return res("MeshMultiZoneService", "backend", ks, spec) }
	runResourceCases(t, []resourceCase{
		{"good", mz(mzmsGood), "", nil},
		{"good on global", mz(mzmsGood), api.ModeGlobal, nil},
		{"read-only on a zone", mz(mzmsGood), api.ModeZone, []got{e(CodeResourceAdmission, "kind")}},
		{"empty", mz("  {}\n"), "", []got{e(CodeMeshMultiZoneService, "spec.ports"), e(CodeMeshMultiZoneService, "spec.selector.meshService.matchLabels")}},
		{"empty port name, bad protocol", mz("  selector:\n    meshService:\n      matchLabels: {app: x}\n  ports:\n    - port: 80\n      name: \"\"\n      appProtocol: mysql\n"), "",
			[]got{e(CodeMeshMultiZoneService, "spec.ports[0].appProtocol"), e(CodeMeshMultiZoneService, "spec.ports[0].name")}},
	})
}

func TestHostnameGeneratorRules(t *testing.T) {
	hg := func(spec string) string { return res("HostnameGenerator", "local", ks, spec) }
	runResourceCases(t, []resourceCase{
		{"good", hg("  selector:\n    meshService: {}\n  template: \"{{ .Name }}.{{ .Namespace }}.mesh\"\n"), "", nil},
		{"label function", hg("  selector:\n    meshMultiZoneService: {}\n  template: '{{ label \"app\" }}.mesh'\n"), "", nil},
		{"no selector", hg("  template: \"{{ .Name }}.mesh\"\n"), "", []got{e(CodeHostnameGenerator, "spec.selector")}},
		{"two selectors", hg("  selector:\n    meshService: {}\n    meshExternalService: {}\n  template: \"{{ .Name }}.mesh\"\n"), "", []got{e(CodeHostnameGenerator, "spec.selector")}},
		{"does not parse", hg("  selector:\n    meshService: {}\n  template: \"{{ .Name\"\n"), "", []got{e(CodeHostnameGenerator, "spec.template")}},
		{"unknown field", hg("  selector:\n    meshService: {}\n  template: \"{{ .Port }}.mesh\"\n"), "", []got{e(CodeHostnameGenerator, "spec.template")}},
		{"endless output", hg("  selector:\n    meshService: {}\n  template: \"{{ range 100000000 }}abcdefgh{{ end }}\"\n"), "", []got{e(CodeHostnameGenerator, "spec.template")}},
		{"upper case", hg("  selector:\n    meshService: {}\n  template: \"{{ .Name }}.MESH\"\n"), "", []got{e(CodeHostnameGenerator, "spec.template")}},
		{"empty", hg("  selector:\n    meshService: {}\n  template: \"\"\n"), "", []got{e(CodeHostnameGenerator, "spec.template")}},
		{"no mesh to check", res("HostnameGenerator", "local", ks, "  selector:\n    meshService: {}\n  template: \"{{ .Name }}.mesh\"\n", "kuma.io/mesh: Not_A_Mesh!"), "", nil},
		{"extension without type", hg("  selector:\n    meshService: {}\n  template: \"{{ .Name }}.mesh\"\n  extension: {config: {}}\n"), "", []got{e(CodeHostnameGenerator, "spec.extension.type")}},
	})
}

func TestMeshOpenTelemetryBackendRules(t *testing.T) {
	ot := func(spec string) string { return res("MeshOpenTelemetryBackend", "otel", ks, spec) }
	runResourceCases(t, []resourceCase{
		{"good", ot(otelGood), "", nil},
		{"empty", ot("  {}\n"), "", nil},
		{"http with path", ot("  endpoint: {address: 10.0.0.1, port: 4318, path: /otlp}\n  protocol: http\n"), "", nil},
		{"grpc with path", ot("  endpoint: {path: /otlp}\n"), "", []got{e(CodeMeshOpenTelemetryBackend, "spec.endpoint.path")}},
		{"bad path", ot("  endpoint: {path: \"otlp?x=1\"}\n  protocol: http\n"), "", []got{e(CodeMeshOpenTelemetryBackend, "spec.endpoint.path"), e(CodeMeshOpenTelemetryBackend, "spec.endpoint.path")}},
		{"address", ot("  endpoint: {address: \"http://c:4317\", port: 0}\n"), "", []got{e(CodeMeshOpenTelemetryBackend, "spec.endpoint.address"), e(CodeMeshOpenTelemetryBackend, "spec.endpoint.port")}},
		{"empty address", ot("  endpoint: {address: \"\"}\n"), "", []got{e(CodeMeshOpenTelemetryBackend, "spec.endpoint.address")}},
		{"enums", ot("  protocol: udp\n  env: {mode: Always, precedence: Last}\n"), "",
			[]got{e(CodeMeshOpenTelemetryBackend, "spec.env.mode"), e(CodeMeshOpenTelemetryBackend, "spec.env.precedence"), e(CodeMeshOpenTelemetryBackend, "spec.protocol")}},
	})
}

func TestWorkloadRules(t *testing.T) {
	runResourceCases(t, []resourceCase{
		{"good", res("Workload", "frontend", "payments", "  {}\n"), "", nil},
		{"long name", res("Workload", strings.Repeat("w", 254), "payments", "  {}\n"), "", []got{e(CodeWorkload, "metadata.name")}},
		{"read-only on global", res("Workload", "frontend", ks, "  {}\n"), api.ModeGlobal, []got{e(CodeResourceAdmission, "kind")}},
	})
}

func TestResourcesOnGlobalLiveInTheSystemNamespace(t *testing.T) {
	runResourceCases(t, []resourceCase{
		{"zone-provided kind elsewhere", res("MeshMultiZoneService", "backend", "payments", mzmsGood), api.ModeGlobal, []got{e(CodeGlobalNamespace, "metadata.namespace")}},
		{"system namespace", res("MeshMultiZoneService", "backend", ks, mzmsGood), api.ModeGlobal, nil},
	})
}
