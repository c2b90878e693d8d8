package validate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
)

// confCase is one resilience policy spec and the MG140-MG145 findings it gives.
type confCase struct {
	name string
	kind string
	spec string // YAML of spec, indented by two spaces
	want []got
}

// resilienceFindings lints a system-namespace policy and keeps the findings of this
// file's codes, so that the shared rules' findings do not blur the cases.
func resilienceFindings(t *testing.T, kind, spec string) []got {
	t.Helper()
	doc := "apiVersion: kuma.io/v1alpha1\nkind: " + kind + "\nmetadata: {name: x, namespace: kuma-system}\nspec:\n" + spec
	var out []got
	for _, g := range reduce(lintOne(t, doc, api.DefaultSettings(), api.Request{})) {
		if g.Code >= CodeCircuitBreakerConf && g.Code <= CodeResilienceDeprecated {
			out = append(out, g)
		}
	}
	return out
}

func runConfCases(t *testing.T, cases []confCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, resilienceFindings(t, tc.kind, tc.spec)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// toMesh is a spec with one `to: Mesh` item whose default is def (flow YAML).
func toMesh(def string) string {
	return "  targetRef: {kind: Mesh}\n  to:\n    - targetRef: {kind: Mesh}\n      default: " + def + "\n"
}

func e(code, f string) got { return got{code, f, SeverityError} }
func w(code, f string) got { return got{code, f, SeverityWarning} }

const d0 = "spec.to[0].default"

func TestMeshTimeoutConf(t *testing.T) {
	mt := func(name, spec string, want ...got) confCase { return confCase{name, "MeshTimeout", spec, want} }
	c := func(f string) got { return e(CodeMeshTimeoutConf, f) }
	runConfCases(t, []confCase{
		mt("valid", toMesh("{connectionTimeout: 5s, idleTimeout: 0s, http: {requestTimeout: 0s, requestHeadersTimeout: 1s}}")),
		mt("no timeout", toMesh("{}"), c(d0)),
		mt("default absent", "  to:\n    - targetRef: {kind: Mesh}\n", c(d0)),
		mt("connectionTimeout 0s", toMesh("{connectionTimeout: 0s}"), c(d0+".connectionTimeout")),
		mt("negative idleTimeout", toMesh("{idleTimeout: -1s}"), c(d0+".idleTimeout")),
		mt("not a duration", toMesh("{idleTimeout: banana}"), c(d0+".idleTimeout")),
		mt("duration without unit", toMesh("{idleTimeout: '5'}"), c(d0+".idleTimeout")),
		mt("negative http timeouts", toMesh("{http: {requestTimeout: -1s, streamIdleTimeout: -1s, maxStreamDuration: -1s, maxConnectionDuration: -1s, requestHeadersTimeout: -1s}}"),
			c(d0+".http.maxConnectionDuration"), c(d0+".http.maxStreamDuration"), c(d0+".http.requestHeadersTimeout"), c(d0+".http.requestTimeout"), c(d0+".http.streamIdleTimeout")),
		mt("http with only requestHeadersTimeout", toMesh("{http: {requestHeadersTimeout: 1s}}"), c(d0+".http")),
		mt("from default checked", "  targetRef: {kind: Mesh}\n  from:\n    - targetRef: {kind: Mesh}\n      default: {idleTimeout: -1s}\n", c("spec.from[0].default.idleTimeout")),
		mt("route target: request timeouts only", "  targetRef: {kind: MeshHTTPRoute, name: r}\n  to:\n    - targetRef: {kind: Mesh}\n      default: {http: {requestTimeout: 1s, streamIdleTimeout: 1s}}\n"),
		mt("route target: connection timeouts", "  targetRef: {kind: MeshHTTPRoute, name: r}\n  to:\n    - targetRef: {kind: Mesh}\n      default: {connectionTimeout: 1s, idleTimeout: 1s, http: {requestTimeout: 1s, maxStreamDuration: 1s, maxConnectionDuration: 1s}}\n",
			c(d0+".connectionTimeout"), c(d0+".http.maxConnectionDuration"), c(d0+".http.maxStreamDuration"), c(d0+".idleTimeout")),
		mt("gateway target: connection timeouts fine", "  targetRef: {kind: MeshGateway, name: edge}\n  to:\n    - targetRef: {kind: Mesh}\n      default: {connectionTimeout: 1s}\n"),
		mt("gateway target with from", "  targetRef: {kind: MeshGateway, name: edge}\n  from:\n    - targetRef: {kind: Mesh}\n      default: {idleTimeout: -1s}\n", c("spec.from")),
		mt("route target with from", "  targetRef: {kind: MeshHTTPRoute, name: r}\n  from:\n    - targetRef: {kind: Mesh}\n      default: {idleTimeout: 1s}\n", c("spec.from")),
		mt("rules default checked", "  targetRef: {kind: Dataplane}\n  rules:\n    - default: {}\n", c("spec.rules[0].default")),
		mt("empty match", "  targetRef: {kind: Dataplane}\n  rules:\n    - matches: [{}]\n      default: {idleTimeout: 1s}\n", c("spec.rules[0].matches[0]")),
		mt("sni match keeps connection timeouts", "  targetRef: {kind: Dataplane}\n  rules:\n    - matches: [{sni: {type: Exact, value: web.svc}}]\n      default: {connectionTimeout: 1s, idleTimeout: 1s}\n"),
		mt("spiffeID match with request timeouts", "  targetRef: {kind: Dataplane}\n  rules:\n    - matches: [{spiffeID: {type: Prefix, value: 'spiffe://td/'}}]\n      default: {http: {requestTimeout: 1s, streamIdleTimeout: 1s}}\n"),
		mt("spiffeID match with connection timeouts", "  targetRef: {kind: Dataplane}\n  rules:\n    - matches: [{spiffeID: {type: Exact, value: 'spiffe://td/a'}}]\n      default: {connectionTimeout: 1s, idleTimeout: 1s, http: {requestTimeout: 1s, requestHeadersTimeout: 1s, maxStreamDuration: 1s, maxConnectionDuration: 1s}}\n",
			c("spec.rules[0].default.connectionTimeout"), c("spec.rules[0].default.http.maxConnectionDuration"), c("spec.rules[0].default.http.maxStreamDuration"), c("spec.rules[0].default.http.requestHeadersTimeout"), c("spec.rules[0].default.idleTimeout")),
	})
}

func TestMeshCircuitBreakerConf(t *testing.T) {
	cb := func(name, def string, want ...got) confCase {
		return confCase{name, "MeshCircuitBreaker", toMesh(def), want}
	}
	c := func(f string) got { return e(CodeCircuitBreakerConf, d0+f) }
	od := func(s string) string { return "{outlierDetection: {" + s + "}}" }
	runConfCases(t, []confCase{
		cb("valid", "{connectionLimits: {maxConnections: 1, maxRequests: 4294967295}, outlierDetection: {interval: 5s, maxEjectionPercent: 100, healthyPanicThreshold: '50.5', detectors: {successRate: {standardDeviationFactor: '1.9'}, failurePercentage: {threshold: 0}}}}"),
		cb("nothing configured", "{}", c("")),
		cb("zero limits", "{connectionLimits: {maxConnections: 0, maxConnectionPools: 0, maxPendingRequests: 0, maxRetries: 0, maxRequests: 0}}",
			c(".connectionLimits.maxConnectionPools"), c(".connectionLimits.maxConnections"), c(".connectionLimits.maxPendingRequests"), c(".connectionLimits.maxRequests"), c(".connectionLimits.maxRetries")),
		cb("negative and too large counts", "{connectionLimits: {maxConnections: -1, maxRequests: 4294967296}}", c(".connectionLimits.maxConnections"), c(".connectionLimits.maxRequests")),
		cb("detectors missing", od("disabled: true"), c(".outlierDetection.detectors")),
		cb("detectors empty", od("detectors: {}"), c(".outlierDetection.detectors")),
		cb("zero durations and counts", od("interval: 0s, baseEjectionTime: 0s, detectors: {totalFailures: {consecutive: 0}, gatewayFailures: {consecutive: 0}, localOriginFailures: {consecutive: 0}, successRate: {minimumHosts: 0, requestVolume: 0, standardDeviationFactor: 0}, failurePercentage: {minimumHosts: 0, requestVolume: 0}}"),
			c(".outlierDetection.baseEjectionTime"),
			c(".outlierDetection.detectors.failurePercentage.minimumHosts"), c(".outlierDetection.detectors.failurePercentage.requestVolume"),
			c(".outlierDetection.detectors.gatewayFailures.consecutive"), c(".outlierDetection.detectors.localOriginFailures.consecutive"),
			c(".outlierDetection.detectors.successRate.minimumHosts"), c(".outlierDetection.detectors.successRate.requestVolume"),
			c(".outlierDetection.detectors.successRate.standardDeviationFactor"), c(".outlierDetection.detectors.totalFailures.consecutive"),
			c(".outlierDetection.interval")),
		cb("percentages above 100", od("maxEjectionPercent: 101, healthyPanicThreshold: 101, detectors: {failurePercentage: {threshold: 101}}"),
			c(".outlierDetection.detectors.failurePercentage.threshold"), c(".outlierDetection.healthyPanicThreshold"), c(".outlierDetection.maxEjectionPercent")),
		cb("negative decimals", od("healthyPanicThreshold: -3, detectors: {successRate: {standardDeviationFactor: '-2'}}"),
			c(".outlierDetection.detectors.successRate.standardDeviationFactor"), c(".outlierDetection.healthyPanicThreshold")),
		cb("not a number", od("healthyPanicThreshold: 'half', detectors: {successRate: {standardDeviationFactor: xyz}}"),
			c(".outlierDetection.detectors.successRate.standardDeviationFactor"), c(".outlierDetection.healthyPanicThreshold")),
		{"rules are checked at their own path", "MeshCircuitBreaker", "  targetRef: {kind: Dataplane}\n  rules:\n    - default: {}\n",
			[]got{e(CodeCircuitBreakerConf, "spec.rules[0].default")}},
	})
}

func TestMeshHealthCheckConf(t *testing.T) {
	hc := func(name, def string, want ...got) confCase {
		return confCase{name, "MeshHealthCheck", toMesh(def), want}
	}
	c := func(f string) got { return e(CodeHealthCheckConf, d0+f) }
	runConfCases(t, []confCase{
		hc("valid", "{interval: 10s, timeout: 2s, unhealthyThreshold: 3, healthyThreshold: 1, intervalJitterPercent: 100, eventLogPath: /tmp/hc.log, http: {path: /health, expectedStatuses: [100, 599]}}"),
		hc("windows log path", "{eventLogPath: 'C:\\logs\\hc.log', grpc: {}}"),
		hc("no protocol", "{interval: 10s}", c("")),
		hc("default absent", "", c("")),
		hc("zero thresholds", "{unhealthyThreshold: 0, healthyThreshold: -1, tcp: {}}", c(".healthyThreshold"), c(".unhealthyThreshold")),
		hc("zero durations", "{interval: 0s, timeout: 0s, initialJitter: 0s, intervalJitter: -1s, noTrafficInterval: 0s, tcp: {}}",
			c(".initialJitter"), c(".interval"), c(".intervalJitter"), c(".noTrafficInterval"), c(".timeout")),
		hc("percentages out of range", "{intervalJitterPercent: 101, healthyPanicThreshold: 101, tcp: {}}",
			c(".healthyPanicThreshold"), c(".intervalJitterPercent"), w(CodeResilienceDeprecated, d0+".healthyPanicThreshold")),
		hc("relative log path", "{eventLogPath: logs/hc.log, tcp: {}}", c(".eventLogPath")),
		hc("empty http path", "{http: {path: ''}}", c(".http.path")),
		hc("status codes out of range", "{http: {expectedStatuses: [99, 600, 200]}}", c(".http.expectedStatuses[0]"), c(".http.expectedStatuses[1]")),
		hc("healthyPanicThreshold is deprecated", "{healthyPanicThreshold: 50, tcp: {}}", w(CodeResilienceDeprecated, d0+".healthyPanicThreshold")),
	})
}

func TestMeshRetryConf(t *testing.T) {
	rt := func(name, def string, want ...got) confCase { return confCase{name, "MeshRetry", toMesh(def), want} }
	c := func(f string) got { return e(CodeRetryConf, d0+f) }
	runConfCases(t, []confCase{
		rt("valid", "{tcp: {maxConnectAttempt: 3}, http: {numRetries: 1, perTryTimeout: 1s, retryOn: [5xx, GatewayError, HttpMethodGet, '503', '429'], backOff: {baseInterval: 1s}, rateLimitedBackOff: {resetHeaders: [{name: retry-after, format: Seconds}], maxInterval: 5s}, hostSelection: [{predicate: OmitPreviousHosts}, {predicate: OmitHostsWithTags, tags: {a: b}}, {predicate: OmitPreviousPriorities}]}, grpc: {retryOn: [Canceled]}}"),
		rt("empty http arrays", "{http: {retryOn: [], hostSelection: []}}"),
		rt("nothing configured", "{}", c("")),
		rt("empty sections", "{tcp: {}, http: {}, grpc: {}}", c(".grpc"), c(".http"), c(".tcp")),
		rt("zero and negative attempts", "{tcp: {maxConnectAttempt: 0}, http: {numRetries: -1}}", c(".http.numRetries"), c(".tcp.maxConnectAttempt")),
		rt("empty back-offs", "{http: {backOff: {}, rateLimitedBackOff: {}}, grpc: {backOff: {}, rateLimitedBackOff: {maxInterval: 0s, resetHeaders: []}}}",
			c(".grpc.backOff"), c(".grpc.rateLimitedBackOff.maxInterval"), c(".http.backOff"), c(".http.rateLimitedBackOff.resetHeaders")),
		rt("bad durations", "{http: {perTryTimeout: '1', backOff: {baseInterval: soon}}}", c(".http.backOff.baseInterval"), c(".http.perTryTimeout")),
		rt("unknown retryOn", "{http: {retryOn: [WRONG, 5XX, reset, '123', '952', '600']}}",
			c(".http.retryOn[0]"), c(".http.retryOn[1]"), c(".http.retryOn[2]"), c(".http.retryOn[3]"), c(".http.retryOn[4]"), c(".http.retryOn[5]")),
		rt("host selection", "{http: {hostSelection: [{predicate: OmitHostsWithTags}, {predicate: OmitPreviousPriorities, updateFrequency: 0}, {predicate: OmitPreviousPriorities, updateFrequency: 2}]}}",
			c(".http.hostSelection[0].tags"), c(".http.hostSelection[1].updateFrequency"), c(".http.hostSelection[2].predicate")),
	})
}

func TestMeshRateLimitConf(t *testing.T) {
	rl := func(name, spec string, want ...got) confCase { return confCase{name, "MeshRateLimit", spec, want} }
	c := func(f string) got { return e(CodeRateLimitConf, f) }
	sidecar := "  targetRef: {kind: Mesh, proxyTypes: [Sidecar]}\n"
	from := func(def string) string {
		return sidecar + "  from:\n    - targetRef: {kind: Mesh}\n      default: " + def + "\n"
	}
	rules := func(match, def string) string { return sidecar + "  rules:\n    - " + match + "default: " + def + "\n" }
	gwTo := func(top, def string) string {
		return "  targetRef: " + top + "\n  to:\n    - targetRef: {kind: Mesh}\n      default: " + def + "\n"
	}
	f0 := "spec.from[0].default.local"
	http := "{local: {http: {requestRate: {num: 10, interval: 1s}}}}"
	runConfCases(t, []confCase{
		rl("from on sidecars", from("{local: {http: {requestRate: {num: 10, interval: 51ms}, onRateLimit: {status: 429}}, tcp: {connectionRate: {num: 1, interval: 1s}}}}")),
		rl("disabled", from("{local: {http: {disabled: true}, tcp: {disabled: true}}}")),
		rl("rules on a Dataplane", "  targetRef: {kind: Dataplane, labels: {app: web}}\n  rules:\n    - default: "+http+"\n"),
		rl("to on a gateway", gwTo("{kind: MeshGateway, name: edge}", http)),
		rl("to on a route", gwTo("{kind: MeshHTTPRoute, name: r}", http)),
		rl("to on Mesh (may include gateways)", gwTo("{kind: Mesh}", http)),
		rl("to on sidecars only", gwTo("{kind: Mesh, proxyTypes: [Sidecar]}", http), c("spec.to")),
		rl("to on a Dataplane", gwTo("{kind: Dataplane}", http), c("spec.to")),
		rl("from on Mesh", "  targetRef: {kind: Mesh}\n  from:\n    - targetRef: {kind: Mesh}\n      default: {}\n", c("spec.from")),
		rl("from without targetRef", "  from:\n    - targetRef: {kind: Mesh}\n      default: "+http+"\n", c("spec.from")),
		rl("from on a gateway", "  targetRef: {kind: MeshGateway, name: edge}\n  from:\n    - targetRef: {kind: Mesh}\n      default: "+http+"\n", c("spec.from")),
		rl("rules on a route", "  targetRef: {kind: MeshHTTPRoute, name: r}\n  rules:\n    - default: "+http+"\n", c("spec.rules")),
		rl("rules on Mesh with gateways", "  targetRef: {kind: Mesh, proxyTypes: [Gateway, Sidecar]}\n  rules:\n    - default: "+http+"\n", c("spec.rules")),
		rl("no local", from("{}"), c(f0)),
		rl("empty local", from("{local: {}}"), c(f0)),
		rl("empty http and tcp", from("{local: {http: {}, tcp: {}}}"), c(f0+".http"), c(f0+".tcp")),
		rl("zero rates", from("{local: {http: {requestRate: {num: 0, interval: 50ms}}, tcp: {connectionRate: {num: 0, interval: 49ms}}}}"),
			c(f0+".http.requestRate.interval"), c(f0+".http.requestRate.num"), c(f0+".tcp.connectionRate.interval"), c(f0+".tcp.connectionRate.num")),
		rl("status", from("{local: {http: {onRateLimit: {status: 0}}}}"), c(f0+".http.onRateLimit.status")),
		rl("status below 400 warns", from("{local: {http: {onRateLimit: {status: 200}}}}"), w(CodeResilienceDeprecated, f0+".http.onRateLimit.status")),
		rl("spiffeID rule with tcp", rules("matches: [{spiffeID: {type: Exact, value: 'spiffe://td/a'}}]\n      ", "{local: {tcp: {connectionRate: {num: 1, interval: 1s}}}}"), c("spec.rules[0].default.local.tcp")),
		rl("sni rule with tcp", rules("matches: [{sni: {type: Exact, value: web}}]\n      ", "{local: {tcp: {connectionRate: {num: 1, interval: 1s}}}}")),
		rl("empty match", rules("matches: [{}]\n      ", http), c("spec.rules[0].matches[0]")),
	})
}

// TestResilienceFindingsAreMessages: every finding of these rules says what to do.
func TestResilienceFindingsAreMessages(t *testing.T) {
	r := lintOne(t, "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: x, namespace: kuma-system}\nspec:\n"+toMesh("{idleTimeout: banana}"), api.DefaultSettings(), api.Request{})
	if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Detail, "5s") {
		t.Errorf("want one error suggesting a duration, got %v", r.Errors)
	}
}
