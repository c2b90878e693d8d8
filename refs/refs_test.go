package refs

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// obj parses one YAML object.
func obj(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	return u
}

// problems resolves the references of subject against inventory (YAML documents
// separated by ---) and returns "code path" of each problem.
func problems(t *testing.T, inventory, subject string, src Source) []string {
	t.Helper()
	inv := NewInventory()
	if inventory != "" {
		for _, d := range strings.Split(inventory, "\n---\n") {
			inv.AddObject(obj(t, d))
		}
	}
	opts := Options{SystemNamespace: "kuma-system", DefaultMesh: "default"}
	var out []string
	for _, p := range (Resolver{Inv: inv, Opts: opts, Source: src}).Check(Extract(obj(t, subject), opts)) {
		out = append(out, p.Code+" "+p.Path)
		if p.Message == "" {
			t.Errorf("%s %s: empty message", p.Code, p.Path)
		}
	}
	return out
}

const (
	svcBackend = "apiVersion: v1\nkind: Service\nmetadata: {name: backend, namespace: shop}\nspec:\n  ports: [{name: http, port: 8080}, {port: 9090}, {name: dns, port: 53, protocol: UDP}]"
	msBackend  = "apiVersion: kuma.io/v1alpha1\nkind: MeshService\nmetadata: {name: backend-x7f, namespace: kuma-system, labels: {kuma.io/display-name: backend, k8s.kuma.io/namespace: shop, team: a}}\nspec:\n  ports: [{name: http, port: 8080}]"
	meshOff    = "apiVersion: kuma.io/v1alpha1\nkind: Mesh\nmetadata: {name: default}\nspec: {}"
	meshOn     = "apiVersion: kuma.io/v1alpha1\nkind: Mesh\nmetadata: {name: default}\nspec: {meshServices: {mode: Exclusive}}"
	deployWeb  = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: web}\nspec:\n  template:\n    metadata: {labels: {app: web, tier: front}}"
	podShop    = "apiVersion: v1\nkind: Pod\nmetadata: {name: cart-1, namespace: shop, labels: {app: cart}}"
)

// timeoutTo is a MeshTimeout in ns whose to[0].targetRef is ref (flow YAML).
func timeoutTo(ns, ref string) string {
	return "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: t, namespace: " + ns + "}\nspec:\n  to:\n    - targetRef: " + ref + "\n      default: {idleTimeout: 1h}"
}

func TestKumaReferences(t *testing.T) {
	route := func(backend string) string {
		return "apiVersion: kuma.io/v1alpha1\nkind: MeshHTTPRoute\nmetadata: {name: r, namespace: shop}\nspec:\n  targetRef: {kind: MeshGateway, name: edge}\n  to:\n    - targetRef: {kind: Mesh}\n      rules:\n        - default:\n            backendRefs: [" + backend + "]"
	}
	gw := "apiVersion: kuma.io/v1alpha1\nkind: MeshGateway\nmetadata: {name: edge}\nspec: {}"
	mzs := "apiVersion: kuma.io/v1alpha1\nkind: MeshMultiZoneService\nmetadata: {name: backend, namespace: kuma-system}\nspec:\n  ports: [{name: http, port: 8080}]"
	mes := "apiVersion: kuma.io/v1alpha1\nkind: MeshExternalService\nmetadata: {name: httpbin, namespace: kuma-system}\nspec: {}"
	mhr := "apiVersion: kuma.io/v1alpha1\nkind: MeshHTTPRoute\nmetadata: {name: to-backend, namespace: shop}\nspec: {}"
	tests := []struct {
		name, inv, subject string
		want               []string
	}{
		{"MeshService from a Service", svcBackend, timeoutTo("shop", "{kind: MeshService, name: backend}"), nil},
		{"MeshService of another mesh", strings.Replace(msBackend, "team: a", "team: a, kuma.io/mesh: prod", 1), timeoutTo("shop", "{kind: MeshService, name: backend}"), []string{"MG401 spec.to[0].targetRef"}},
		{"MeshService of the same mesh", strings.Replace(msBackend, "team: a", "team: a, kuma.io/mesh: default", 1), timeoutTo("shop", "{kind: MeshService, name: backend}"), nil},
		{"Service of another mesh", strings.Replace(svcBackend, "namespace: shop}", "namespace: shop, labels: {kuma.io/mesh: prod}}", 1), timeoutTo("shop", "{kind: MeshService, name: backend}"), []string{"MG401 spec.to[0].targetRef"}},
		{"MeshService missing", svcBackend, timeoutTo("shop", "{kind: MeshService, name: backnd}"), []string{"MG401 spec.to[0].targetRef"}},
		{"namespace the inventory cannot see", svcBackend, timeoutTo("shop", "{kind: MeshService, name: payments, namespace: billing}"), nil},
		{"empty inventory", "", timeoutTo("shop", "{kind: MeshService, name: anything}"), nil},
		{"sectionName by name", svcBackend, timeoutTo("shop", "{kind: MeshService, name: backend, sectionName: http}"), nil},
		{"sectionName by number of an unnamed port", svcBackend, timeoutTo("shop", "{kind: MeshService, name: backend, sectionName: \"9090\"}"), nil},
		{"sectionName by number of a named port", svcBackend, timeoutTo("shop", "{kind: MeshService, name: backend, sectionName: \"8080\"}"), nil},
		{"sectionName of a UDP port", svcBackend, timeoutTo("shop", "{kind: MeshService, name: backend, sectionName: dns}"), []string{"MG402 spec.to[0].targetRef"}},
		{"MeshService by display name in its k8s namespace", msBackend, timeoutTo("shop", "{kind: MeshService, name: backend, sectionName: http}"), nil},
		{"MeshService port missing", msBackend, timeoutTo("shop", "{kind: MeshService, name: backend, sectionName: grpc}"), []string{"MG402 spec.to[0].targetRef"}},
		{"mesh without MeshService generation", meshOff + "\n---\n" + svcBackend, timeoutTo("shop", "{kind: MeshService, name: backend}"), []string{"MG401 spec.to[0].targetRef"}},
		{"mesh with MeshService generation", meshOn + "\n---\n" + svcBackend, timeoutTo("shop", "{kind: MeshService, name: backend}"), nil},
		{"legacy kuma.io/service", svcBackend, timeoutTo("kuma-system", "{kind: MeshService, name: backend_shop_svc_8080}"), nil},
		{"legacy kuma.io/service, wrong port", svcBackend, timeoutTo("kuma-system", "{kind: MeshService, name: backend_shop_svc_8081}"), []string{"MG401 spec.to[0].targetRef"}},
		{"legacy kuma.io/service, wrong Service", svcBackend, timeoutTo("kuma-system", "{kind: MeshService, name: backed_shop_svc_8080}"), []string{"MG401 spec.to[0].targetRef"}},
		{"backendRef port", svcBackend, route("{kind: MeshService, name: backend, port: 8080}"), nil},
		{"backendRef port missing", svcBackend, route("{kind: MeshService, name: backend, port: 8081}"), []string{"MG402 spec.to[0].rules[0].default.backendRefs[0]"}},
		{"MeshGateway is cluster-scoped", gw, route("{kind: MeshExternalService, name: x, namespace: elsewhere}"), nil},
		{"MeshGateway missing", gw + "\n---\n" + svcBackend, "apiVersion: kuma.io/v1alpha1\nkind: MeshHTTPRoute\nmetadata: {name: r, namespace: kuma-system}\nspec:\n  targetRef: {kind: MeshGateway, name: egde}\n  to: []", []string{"MG401 spec.targetRef"}},
		{"MeshMultiZoneService", mzs, timeoutTo("kuma-system", "{kind: MeshMultiZoneService, name: backend, sectionName: http}"), nil},
		{"MeshMultiZoneService port", mzs, timeoutTo("kuma-system", "{kind: MeshMultiZoneService, name: backend, sectionName: \"9000\"}"), []string{"MG402 spec.to[0].targetRef"}},
		{"MeshExternalService any sectionName", mes, timeoutTo("kuma-system", "{kind: MeshExternalService, name: httpbin, sectionName: whatever}"), nil},
		{"MeshExternalService missing", mes, timeoutTo("kuma-system", "{kind: MeshExternalService, name: httpbun}"), []string{"MG401 spec.to[0].targetRef"}},
		{"MeshHTTPRoute", mhr, "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: t, namespace: shop}\nspec:\n  targetRef: {kind: MeshHTTPRoute, name: to-backend}\n  default: {}", nil},
		{"MeshHTTPRoute missing", mhr, "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: t, namespace: shop}\nspec:\n  targetRef: {kind: MeshHTTPRoute, name: to-backnd}\n  default: {}", []string{"MG401 spec.targetRef"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, problems(t, tt.inv, tt.subject, SourceFiles)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestKumaSelectionsAndMeshes(t *testing.T) {
	dp := func(ns, labels string) string {
		return "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: t, namespace: " + ns + "}\nspec:\n  targetRef: {kind: Dataplane, labels: " + labels + "}\n  to: []"
	}
	msLabels := func(labels string) string {
		return timeoutTo("kuma-system", "{kind: MeshService, labels: "+labels+"}")
	}
	otel := "apiVersion: kuma.io/v1alpha1\nkind: MeshOpenTelemetryBackend\nmetadata: {name: otel, namespace: kuma-system, labels: {app: otel}}\nspec: {}"
	metric := func(app string) string {
		return "apiVersion: kuma.io/v1alpha1\nkind: MeshMetric\nmetadata: {name: m, namespace: kuma-system}\nspec:\n  default:\n    backends: [{type: OpenTelemetry, openTelemetry: {backendRef: {kind: MeshOpenTelemetryBackend, labels: {app: " + app + "}}}}]"
	}
	meshed := func(mesh string) string {
		return "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: t, namespace: kuma-system, labels: {kuma.io/mesh: " + mesh + "}}\nspec: {}"
	}
	prod := "apiVersion: kuma.io/v1alpha1\nkind: Mesh\nmetadata: {name: prod}\nspec: {}"
	tests := []struct {
		name, inv, subject string
		want               []string
	}{
		{"Dataplane labels select a pod template", deployWeb, dp("web", "{app: web}"), nil},
		{"Dataplane labels select nothing", deployWeb, dp("web", "{app: wbe}"), []string{"MG403 spec.targetRef.labels"}},
		{"Kuma's own labels are not judged", deployWeb, dp("web", "{app: web, kuma.io/zone: east}"), nil},
		{"a namespace policy selects only its namespace", deployWeb + "\n---\n" + podShop, dp("shop", "{app: web}"), []string{"MG403 spec.targetRef.labels"}},
		{"a system policy selects every namespace", deployWeb, dp("kuma-system", "{app: web}"), nil},
		{"a system policy narrowed by k8s.kuma.io/namespace", deployWeb + "\n---\n" + podShop, dp("kuma-system", "{app: web, k8s.kuma.io/namespace: shop}"), []string{"MG403 spec.targetRef.labels"}},
		{"no workloads in the namespace", podShop, dp("web", "{app: web}"), nil},
		{"MeshService labels of a generated MeshService", svcBackend, msLabels("{k8s.kuma.io/service-name: backend}"), nil},
		{"MeshService labels of a MeshService", msBackend, msLabels("{team: a}"), nil},
		{"MeshService labels select nothing", msBackend, msLabels("{team: b}"), []string{"MG403 spec.to[0].targetRef.labels"}},
		{"OpenTelemetry backend", otel, metric("otel"), nil},
		{"OpenTelemetry backend missing", otel, metric("otle"), []string{"MG404 spec.default.backends[0].openTelemetry.backendRef.labels"}},
		{"OpenTelemetry backends unknown", "", metric("otle"), nil},
		{"default mesh is implicit", prod, meshed("default"), nil},
		{"mesh of the inventory", prod, meshed("prod"), nil},
		{"mesh missing", prod, meshed("prd"), []string{"MG405 metadata.labels[kuma.io/mesh]"}},
		{"no Mesh known: only a near miss of default", "", meshed("prd"), nil},
		{"no Mesh known: default misspelt", "", meshed("defualt"), []string{"MG405 metadata.labels[kuma.io/mesh]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, problems(t, tt.inv, tt.subject, SourceFiles)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLinkerdReferences(t *testing.T) {
	server := "apiVersion: policy.linkerd.io/v1beta3\nkind: Server\nmetadata: {name: web-http, namespace: web}\nspec: {podSelector: {matchLabels: {app: web}}, port: http}"
	authn := "apiVersion: policy.linkerd.io/v1alpha1\nkind: MeshTLSAuthentication\nmetadata: {name: front, namespace: web}\nspec: {identities: [x]}"
	sa := "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: front, namespace: front}"
	ns := "apiVersion: v1\nkind: Namespace\nmetadata: {name: web}"
	svc := "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: web}\nspec: {ports: [{name: http, port: 8080}]}"
	route := "apiVersion: policy.linkerd.io/v1beta3\nkind: HTTPRoute\nmetadata: {name: r, namespace: web}\nspec: {}"
	ap := func(target, authRefs string) string {
		return "apiVersion: policy.linkerd.io/v1alpha1\nkind: AuthorizationPolicy\nmetadata: {name: ap, namespace: web}\nspec:\n  targetRef: " + target + "\n  requiredAuthenticationRefs: [" + authRefs + "]"
	}
	gwRoute := func(parent, backend string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: web}\nspec:\n  parentRefs: [" + parent + "]\n  rules: [{backendRefs: [" + backend + "]}]"
	}
	srvSel := func(sel string) string {
		return "apiVersion: policy.linkerd.io/v1beta3\nkind: Server\nmetadata: {name: s, namespace: web}\nspec: {podSelector: " + sel + ", port: 8080}"
	}
	all := strings.Join([]string{server, authn, sa, ns, svc, route, deployWeb}, "\n---\n")
	tests := []struct {
		name, subject string
		want          []string
	}{
		{"Server target and authentication", ap("{group: policy.linkerd.io, kind: Server, name: web-http}", "{group: policy.linkerd.io, kind: MeshTLSAuthentication, name: front}"), nil},
		{"Server target missing", ap("{group: policy.linkerd.io, kind: Server, name: web-htp}", ""), []string{"MG420 spec.targetRef"}},
		{"policy.linkerd.io HTTPRoute target", ap("{group: policy.linkerd.io, kind: HTTPRoute, name: r}", ""), nil},
		{"Gateway API HTTPRoute is another object", ap("{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}", ""), nil},
		{"Namespace target", ap("{kind: Namespace, name: web}", ""), nil},
		{"Namespace target missing", ap("{kind: Namespace, name: wbe}", ""), []string{"MG420 spec.targetRef"}},
		{"MeshTLSAuthentication missing", ap("{kind: Namespace, name: web}", "{group: policy.linkerd.io, kind: MeshTLSAuthentication, name: frnt}"), []string{"MG421 spec.requiredAuthenticationRefs[0]"}},
		{"NetworkAuthentication unknown", ap("{kind: Namespace, name: web}", "{group: policy.linkerd.io, kind: NetworkAuthentication, name: n}"), nil},
		{"ServiceAccount in its namespace", ap("{kind: Namespace, name: web}", "{kind: ServiceAccount, name: front, namespace: front}"), nil},
		{"ServiceAccount missing", ap("{kind: Namespace, name: web}", "{kind: ServiceAccount, name: frnt, namespace: front}"), []string{"MG421 spec.requiredAuthenticationRefs[0]"}},
		{"Service parent and backend", gwRoute("{group: core, kind: Service, name: web, port: 8080}", "{name: web, port: 8080}"), nil},
		{"Service parent port missing", gwRoute("{group: core, kind: Service, name: web, port: 80}", "{name: web, port: 8080}"), []string{"MG422 spec.parentRefs[0]"}},
		{"Server parent missing", gwRoute("{group: policy.linkerd.io, kind: Server, name: web-htp}", "{name: web, port: 8080}"), []string{"MG422 spec.parentRefs[0]"}},
		{"Gateway parent is not judged", gwRoute("{name: public-gw}", "{name: web, port: 8080}"), nil},
		{"backend missing", gwRoute("{group: core, kind: Service, name: web}", "{name: web-v2, port: 8080}"), []string{"MG423 spec.rules[0].backendRefs[0]"}},
		{"backend in another namespace unknown", gwRoute("{group: core, kind: Service, name: web}", "{name: web, namespace: other, port: 8080}"), nil},
		{"MeshTLSAuthentication identityRefs", "apiVersion: policy.linkerd.io/v1alpha1\nkind: MeshTLSAuthentication\nmetadata: {name: m, namespace: web}\nspec: {identityRefs: [{kind: ServiceAccount, name: front, namespace: front}, {kind: ServiceAccount, name: frnt, namespace: front}]}", []string{"MG421 spec.identityRefs[1]"}},
		{"ServerAuthorization", "apiVersion: policy.linkerd.io/v1beta1\nkind: ServerAuthorization\nmetadata: {name: sa, namespace: web}\nspec: {server: {name: web-htp}, client: {meshTLS: {serviceAccounts: [{name: front, namespace: front}, {name: fron, namespace: front}]}}}", []string{"MG420 spec.server.name", "MG421 spec.client.meshTLS.serviceAccounts[1]"}},
		{"Server selects pods", srvSel("{matchLabels: {app: web}}"), nil},
		{"Server selects pods by expression", srvSel("{matchExpressions: [{key: tier, operator: In, values: [front, back]}]}"), nil},
		{"Server selects no pod", srvSel("{matchLabels: {app: web, tier: back}}"), []string{"MG424 spec.podSelector"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, problems(t, all, tt.subject, SourceFiles)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
	// The policy's own namespace exists, Namespace object or not.
	other := "apiVersion: v1\nkind: Namespace\nmetadata: {name: other}"
	if got := problems(t, other, ap("{kind: Namespace, name: web}", ""), SourceFiles); len(got) != 0 {
		t.Errorf("own namespace reported: %v", got)
	}
	if got := problems(t, other, ap("{kind: Namespace, name: wbe}", ""), SourceFiles); len(got) != 1 {
		t.Errorf("another missing namespace: %v, want MG420", got)
	}
}

// TestMessages: a finding names the missing object, the nearest name and where
// it looked; the cluster's words differ from the linter's.
func TestMessages(t *testing.T) {
	opts := Options{SystemNamespace: "kuma-system", DefaultMesh: "default"}
	inv := NewInventory()
	inv.AddObject(obj(t, svcBackend))
	refs := Extract(obj(t, timeoutTo("shop", "{kind: MeshService, name: backnd}")), opts)
	files := (Resolver{Inv: inv, Opts: opts}).Check(refs)
	cluster := (Resolver{Inv: inv, Opts: opts, Source: SourceCluster}).Check(refs)
	if len(files) != 1 || len(cluster) != 1 {
		t.Fatalf("files %v, cluster %v", files, cluster)
	}
	for _, want := range []string{`MeshService shop/backnd: not found`, `did you mean "backend"?`, "not found in the inventory", "may exist in the cluster"} {
		if !strings.Contains(files[0].Message, want) {
			t.Errorf("lint message %q lacks %q", files[0].Message, want)
		}
	}
	if !strings.Contains(cluster[0].Message, "not found in the cluster") || strings.Contains(cluster[0].Message, "--inventory") {
		t.Errorf("cluster message %q", cluster[0].Message)
	}
}
