package validate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

// obsCase is one observability policy spec and the MG130-MG134 findings it gives.
type obsCase struct {
	name string
	spec string // YAML of spec, indented by two spaces
	want []got
}

// obsFindings lints a system-namespace policy of kind and keeps the findings of the
// observability codes, so that the shared rules' findings do not blur the cases.
func obsFindings(t *testing.T, kind, spec string) []got {
	t.Helper()
	doc := "apiVersion: kuma.io/v1alpha1\nkind: " + kind + "\nmetadata: {name: x, namespace: kuma-system}\nspec:\n" + spec
	var out []got
	for _, g := range reduce(lintOne(t, doc, api.DefaultSettings(), api.Request{})) {
		if g.Code >= CodeAccessLogConf && g.Code <= CodeOtelEndpoint {
			out = append(out, g)
		}
	}
	return out
}

func runObsCases(t *testing.T, kind string, cases []obsCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, obsFindings(t, kind, tc.spec)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func obsErr(code, f string) got  { return got{code, f, SeverityError} }
func obsWarn(code, f string) got { return got{code, f, SeverityWarning} }

// obsAL is a MeshAccessLog with one `from: Mesh` item whose backends are the given
// flow YAML list.
func obsAL(backends string) string {
	return "  targetRef: {kind: Mesh}\n  from:\n    - targetRef: {kind: Mesh}\n      default: {backends: " + backends + "}\n"
}

const obsALB0 = "spec.from[0].default.backends[0]"

func TestMeshAccessLogConf(t *testing.T) {
	c := func(f string) got { return obsErr(CodeAccessLogConf, f) }
	ot := func(f string) got { return obsErr(CodeOtelBackend, f) }
	ref := "backendRef: {kind: MeshOpenTelemetryBackend, labels: {app: otel}}"
	runObsCases(t, "MeshAccessLog", []obsCase{
		{"valid file, tcp, otel", obsAL("[{type: File, file: {path: /dev/stdout, format: {type: Plain, plain: '[%START_TIME%]'}}}," +
			" {type: Tcp, tcp: {address: 'logstash:5000', format: {type: Json, json: [{key: start, value: '%START_TIME%'}]}}}," +
			" {type: OpenTelemetry, openTelemetry: {" + ref + ", attributes: [{key: service.version, value: '%KUMA_MESH%'}]}}]"), nil},
		{"empty backends turn logs off", obsAL("[]"), nil},
		{"backends absent", "  targetRef: {kind: Mesh}\n  to:\n    - targetRef: {kind: Mesh}\n      default: {}\n", []got{c("spec.to[0].default.backends")}},
		{"rules default checked", "  targetRef: {kind: Dataplane, labels: {app: web}}\n  rules:\n    - default: {}\n", []got{c("spec.rules[0].default.backends")}},
		{"backend sections missing", obsAL("[{type: File}, {type: Tcp}, {type: OpenTelemetry}]"),
			[]got{c(obsALB0 + ".file"), c("spec.from[0].default.backends[1].tcp"), c("spec.from[0].default.backends[2].openTelemetry")}},
		{"section of another type is ignored", obsAL("[{type: Tcp, tcp: {address: '127.0.0.1:5000'}, file: {path: relative}}]"), nil},
		{"relative path", obsAL("[{type: File, file: {path: logs/access.log}}]"), []got{c(obsALB0 + ".file.path")}},
		{"windows path", obsAL("[{type: File, file: {path: 'C:\\logs\\access.log'}}]"), nil},
		{"bare name address", obsAL("[{type: Tcp, tcp: {address: not_valid_url}}]"), []got{c(obsALB0 + ".tcp.address")}},
		{"plain format missing and empty", obsAL("[{type: File, file: {path: /a, format: {type: Plain}}}, {type: File, file: {path: /a, format: {type: Plain, plain: ''}}}]"),
			[]got{c(obsALB0 + ".file.format.plain"), c("spec.from[0].default.backends[1].file.format.plain")}},
		{"json format missing and empty", obsAL("[{type: Tcp, tcp: {address: 'a.b:1', format: {type: Json}}}, {type: Tcp, tcp: {address: 'a.b:1', format: {type: Json, json: []}}}]"),
			[]got{c(obsALB0 + ".tcp.format.json"), c("spec.from[0].default.backends[1].tcp.format.json")}},
		{"json key and value empty", obsAL("[{type: File, file: {path: /a, format: {type: Json, json: [{key: '', value: ''}]}}}]"),
			[]got{c(obsALB0 + ".file.format.json[0].key"), c(obsALB0 + ".file.format.json[0].value")}},
		{"json key with a quote", obsAL(`[{type: File, file: {path: /a, format: {type: Json, json: [{key: '"', value: x}]}}}]`),
			[]got{c(obsALB0 + ".file.format.json[0]")}},
		{"json value with an escaped quote", obsAL(`[{type: File, file: {path: /a, format: {type: Json, json: [{key: k, value: 'a\"b'}]}}}]`), nil},
		{"otel neither", obsAL("[{type: OpenTelemetry, openTelemetry: {}}]"), []got{ot(obsALB0 + ".openTelemetry.backendRef")}},
		{"otel both", obsAL("[{type: OpenTelemetry, openTelemetry: {endpoint: 'c:4317', " + ref + "}}]"), []got{ot(obsALB0 + ".openTelemetry.endpoint")}},
		{"otel backendRef without labels", obsAL("[{type: OpenTelemetry, openTelemetry: {backendRef: {kind: MeshOpenTelemetryBackend}}}]"),
			[]got{ot(obsALB0 + ".openTelemetry.backendRef.labels")}},
		{"otel endpoint deprecated", obsAL("[{type: OpenTelemetry, openTelemetry: {endpoint: 'c:4317'}}]"), []got{obsWarn(CodeOtelEndpoint, obsALB0+".openTelemetry.endpoint")}},
		{"otel endpoint URL", obsAL("[{type: OpenTelemetry, openTelemetry: {endpoint: 'http://c:4317'}}]"), []got{ot(obsALB0 + ".openTelemetry.endpoint")}},
		{"otel endpoint without port is fine here", obsAL("[{type: OpenTelemetry, openTelemetry: {endpoint: collector}}]"), []got{obsWarn(CodeOtelEndpoint, obsALB0+".openTelemetry.endpoint")}},
		{"attribute keys", obsAL("[{type: OpenTelemetry, openTelemetry: {" + ref + ", attributes: [{key: '', value: a}, {key: '%KUMA_ZONE%', value: a}, {key: otel.x, value: a}, {key: service..v, value: a}, {key: service_, value: a}, {key: Service, value: a}, {key: a1.b_c, value: a}]}}]"),
			[]got{c(obsALB0 + ".openTelemetry.attributes[0].key"), c(obsALB0 + ".openTelemetry.attributes[1].key"), c(obsALB0 + ".openTelemetry.attributes[2].key"),
				c(obsALB0 + ".openTelemetry.attributes[3].key"), c(obsALB0 + ".openTelemetry.attributes[4].key"), c(obsALB0 + ".openTelemetry.attributes[5].key")}},
	})
}

// obsMT is a MeshTrace whose default is the given flow YAML.
func obsMT(def string) string { return "  targetRef: {kind: Mesh}\n  default: " + def + "\n" }

const obsMTB0 = "spec.default.backends[0]"

func TestMeshTraceConf(t *testing.T) {
	c := func(f string) got { return obsErr(CodeTraceConf, f) }
	dd := func(url string) string {
		return obsMT("{backends: [{type: Datadog, datadog: {url: '" + url + "'}}]}")
	}
	runObsCases(t, "MeshTrace", []obsCase{
		{"valid zipkin with tags and sampling", obsMT("{backends: [{type: Zipkin, zipkin: {url: 'http://jaeger-collector:9411/api/v2/spans'}}]," +
			" tags: [{name: team, literal: core}, {name: env, header: {name: x-env}}], sampling: {overall: 80, client: '40.5', random: 0}}"), nil},
		{"empty backends", obsMT("{backends: []}"), nil},
		{"no default", "  targetRef: {kind: Mesh}\n", []got{c("spec.default.backends")}},
		{"default without backends", obsMT("{sampling: {overall: 1}}"), []got{c("spec.default.backends")}},
		{"two backends are the CRD's", obsMT("{backends: [{type: Datadog}, {type: Zipkin}]}"), nil},
		{"sections missing", obsMT("{backends: [{type: Datadog}]}"), []got{c(obsMTB0 + ".datadog")}},
		{"zipkin section missing", obsMT("{backends: [{type: Zipkin}]}"), []got{c(obsMTB0 + ".zipkin")}},
		{"otel section missing", obsMT("{backends: [{type: OpenTelemetry}]}"), []got{c(obsMTB0 + ".openTelemetry")}},
		{"zipkin url empty", obsMT("{backends: [{type: Zipkin, zipkin: {url: ''}}]}"), []got{c(obsMTB0 + ".zipkin.url")}},
		{"zipkin url invalid", obsMT("{backends: [{type: Zipkin, zipkin: {url: not_valid_url}}]}"), []got{c(obsMTB0 + ".zipkin.url")}},
		{"datadog valid", dd("http://datadog-agent:8126"), nil},
		{"datadog not a url", dd("not_valid_url"), []got{c(obsMTB0 + ".datadog.url")}},
		{"datadog no port", dd("http://agent"), []got{c(obsMTB0 + ".datadog.url")}},
		{"datadog port out of range", dd("http://agent:70000"), []got{c(obsMTB0 + ".datadog.url")}},
		{"datadog port 0", dd("http://agent:0"), []got{c(obsMTB0 + ".datadog.url")}},
		{"datadog https", dd("https://agent:8126"), []got{c(obsMTB0 + ".datadog.url")}},
		{"datadog path, query, user", dd("http://u@agent:8126/p?q=1"), []got{c(obsMTB0 + ".datadog.url"), c(obsMTB0 + ".datadog.url"), c(obsMTB0 + ".datadog.url")}},
		{"otel endpoint path", obsMT("{backends: [{type: OpenTelemetry, openTelemetry: {endpoint: 'c:4318/v1/traces'}}]}"),
			[]got{obsErr(CodeOtelBackend, obsMTB0+".openTelemetry.endpoint")}},
		{"otel backendRef", obsMT("{backends: [{type: OpenTelemetry, openTelemetry: {backendRef: {kind: MeshOpenTelemetryBackend, labels: {a: b}}}}]}"), nil},
		{"tag without source and with both", obsMT("{backends: [], tags: [{name: a}, {name: b, literal: x, header: {name: h}}]}"),
			[]got{c("spec.default.tags[0]"), c("spec.default.tags[1]")}},
		{"tag with empty name", obsMT("{backends: [], tags: [{name: '', literal: x}]}"), []got{c("spec.default.tags[0].name")}},
		{"sampling out of range", obsMT("{backends: [], sampling: {overall: 101, client: -1, random: '100.5'}}"),
			[]got{c("spec.default.sampling.client"), c("spec.default.sampling.overall"), c("spec.default.sampling.random")}},
		{"sampling not a number", obsMT("{backends: [], sampling: {overall: xyz, random: '1e1', client: '.5'}}"), []got{c("spec.default.sampling.overall")}},
	})
}

// obsMM is a MeshMetric whose default is the given flow YAML.
func obsMM(def string) string { return "  targetRef: {kind: Mesh}\n  default: " + def + "\n" }

func TestMeshMetricConf(t *testing.T) {
	c := func(f string) got { return obsErr(CodeMetricConf, f) }
	runObsCases(t, "MeshMetric", []obsCase{
		{"valid", obsMM("{sidecar: {profiles: {appendProfiles: [{name: Basic}], exclude: [{type: Regex, match: 'envoy_.*'}], include: [{type: Prefix, match: '(('}]}}," +
			" applications: [{port: 8888, path: /metrics}], backends: [{type: Prometheus, prometheus: {port: 5670}}, {type: Prometheus, prometheus: {}}," +
			" {type: OpenTelemetry, openTelemetry: {backendRef: {kind: MeshOpenTelemetryBackend, labels: {a: b}}, refreshInterval: 30s}}]}"), nil},
		{"empty default", obsMM("{}"), nil},
		{"regexes", obsMM("{sidecar: {profiles: {exclude: [{type: Regex, match: '())(!('}], include: [{type: Regex, match: '[a-'}]}}}"),
			[]got{c("spec.default.sidecar.profiles.exclude[0].match"), c("spec.default.sidecar.profiles.include[0].match")}},
		{"application ports", obsMM("{applications: [{port: 0}, {port: 95599}, {port: 65535}]}"),
			[]got{c("spec.default.applications[0].port"), c("spec.default.applications[1].port")}},
		{"prometheus section missing", obsMM("{backends: [{type: Prometheus}]}"), []got{c("spec.default.backends[0].prometheus")}},
		{"prometheus port", obsMM("{backends: [{type: Prometheus, prometheus: {port: 95599}}]}"), []got{c("spec.default.backends[0]")}},
		{"otel section missing", obsMM("{backends: [{type: OpenTelemetry}]}"), []got{c("spec.default.backends[0].openTelemetry")}},
		{"otel endpoint without port", obsMM("{backends: [{type: OpenTelemetry, openTelemetry: {endpoint: collector}}]}"),
			[]got{obsErr(CodeOtelBackend, "spec.default.backends[0].openTelemetry.endpoint")}},
		{"otel endpoint host:port", obsMM("{backends: [{type: OpenTelemetry, openTelemetry: {endpoint: 'collector:4317'}}]}"),
			[]got{obsWarn(CodeOtelEndpoint, "spec.default.backends[0].openTelemetry.endpoint")}},
		{"refreshInterval", obsMM("{backends: [{type: OpenTelemetry, openTelemetry: {backendRef: {kind: MeshOpenTelemetryBackend, labels: {a: b}}, refreshInterval: '30'}}]}"),
			[]got{c("spec.default.backends[0].openTelemetry.refreshInterval")}},
	})
}

// TestObservabilityWithSchema: with the CRD layer on, a field the CRD already
// requires or types gives the schema's finding alone, and the conf rules still run
// on what the CRD accepts.
func TestObservabilityWithSchema(t *testing.T) {
	s := api.DefaultSettings()
	if err := schema.LoadInto(&s); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, kind, spec string
		want             []got
	}{
		{"file path absent", api.KindMeshAccessLog, obsAL("[{type: File, file: {}}]"),
			[]got{obsErr(api.CodeWrongType, obsALB0+".file.path")}},
		{"backends of the wrong type", api.KindMeshTrace, obsMT("{backends: oops}"),
			[]got{obsErr(api.CodeWrongType, "spec.default.backends")}},
		{"sampling string the CRD accepts", api.KindMeshTrace, obsMT("{backends: [], sampling: {overall: abc}}"),
			[]got{obsErr(CodeTraceConf, "spec.default.sampling.overall")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := "apiVersion: kuma.io/v1alpha1\nkind: " + tc.kind + "\nmetadata: {name: x, namespace: kuma-system}\nspec:\n" + tc.spec
			if diff := cmp.Diff(tc.want, errorsOnly(lintOne(t, doc, s, api.Request{}))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
