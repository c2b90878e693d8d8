package kumainspect

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
)

// storeOf reads a YAML stream into a store with Kuma 2.14's CRD defaults.
func storeOf(t *testing.T, in string) *Store {
	t.Helper()
	reg := api.DefaultRegistry()
	objs, err := Decode(strings.NewReader(in), "test", reg)
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := kumaSchemas()
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStore(objs, reg, schemas)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// get answers path and returns the status and the body as generic JSON.
func get(t *testing.T, s *Store, path string) (int, map[string]any) {
	t.Helper()
	r := s.Get(path)
	raw, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	return r.Status, body
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

const shop = `type: Mesh
name: default
meshServices:
  mode: Exclusive
---
type: Dataplane
name: web-1
mesh: default
labels:
  app: web
networking:
  address: 10.0.0.10
  inbound:
    - port: 8080
      name: http
      tags:
        kuma.io/service: web
---
type: Dataplane
name: backend-1
mesh: default
networking:
  address: 10.0.0.20
  inbound:
    - port: 8080
      tags:
        kuma.io/service: backend
---
type: MeshService
name: backend
mesh: default
spec:
  selector:
    dataplaneTags:
      kuma.io/service: backend
  ports:
    - name: http
      port: 80
      targetPort: 8080
      appProtocol: http
---
type: MeshHTTPRoute
name: to-backend
mesh: default
spec:
  targetRef: {kind: Mesh}
  to:
    - targetRef: {kind: MeshService, name: backend}
      rules:
        - matches: [{path: {type: PathPrefix, value: /api}}]
          default:
            backendRefs: [{kind: MeshService, name: backend, port: 80}]
---
type: MeshTimeout
name: on-route
mesh: default
spec:
  targetRef: {kind: Mesh}
  to:
    - targetRef: {kind: MeshHTTPRoute, name: to-backend}
      default: {http: {requestTimeout: 90s}}
    - targetRef: {kind: MeshService, name: backend}
      default: {http: {requestTimeout: 5s}}
`

func TestRoutesAndRoutePolicies(t *testing.T) {
	s := storeOf(t, shop)
	status, body := get(t, s, "/meshes/default/dataplanes/web-1/_outbounds/kri_msvc_default___backend_http/_routes")
	want := `{"routes":[{"kind":"MeshHTTPRoute","origins":[{"kri":"kri_mhttpr_default___to-backend_"}],"rules":[{"conf":{"backendRefs":[{"kind":"MeshService","name":"backend","port":80,"weight":1}]},"kri":"kri_mhttpr_default___to-backend_","matches":[{"path":{"type":"PathPrefix","value":"/api"}}]}]}]}`
	if status != 200 || jsonOf(body) != want {
		t.Errorf("_routes: %d %s\nwant 200 %s", status, jsonOf(body), want)
	}
	// A route's own rule wins over its outbound's; durations are written as Kuma writes them.
	status, body = get(t, s, "/meshes/default/dataplanes/web-1/_outbounds/kri_msvc_default___backend_http/_routes/kri_mhttpr_default___to-backend_/_policies")
	want = `{"policies":[{"conf":[{"http":{"requestTimeout":"1m30s"}}],"kind":"MeshTimeout","origins":[{"kri":"kri_mt_default___on-route_"}]}]}`
	if status != 200 || jsonOf(body) != want {
		t.Errorf("route _policies: %d %s\nwant 200 %s", status, jsonOf(body), want)
	}
	status, body = get(t, s, "/meshes/default/dataplanes/web-1/_outbounds/kri_msvc_default___backend_http/_policies")
	if want = `"requestTimeout":"5s"`; status != 200 || !strings.Contains(jsonOf(body), want) {
		t.Errorf("outbound _policies: %d %s, want %s", status, jsonOf(body), want)
	}
}

func TestPolicyAndMeshServiceDataplanes(t *testing.T) {
	s := storeOf(t, shop+`---
type: MeshTrace
name: web-only
mesh: default
spec:
  targetRef: {kind: Dataplane, labels: {app: web}}
  default: {backends: [{type: Zipkin, zipkin: {url: "http://zipkin:9411"}}]}
`)
	status, body := get(t, s, "/meshes/default/meshtraces/web-only/_resources/dataplanes")
	if want := `{"items":[{"labels":{"app":"web"},"mesh":"default","name":"web-1","type":"Dataplane"}],"total":1}`; status != 200 || jsonOf(body) != want {
		t.Errorf("_resources/dataplanes: %d %s\nwant 200 %s", status, jsonOf(body), want)
	}
	status, body = get(t, s, "/meshes/default/meshservices/backend/_dataplanes")
	if want := `{"items":[{"labels":{},"mesh":"default","name":"backend-1","type":"Dataplane"}],"total":1}`; status != 200 || jsonOf(body) != want {
		t.Errorf("meshservices _dataplanes: %d %s\nwant 200 %s", status, jsonOf(body), want)
	}
	shadow := storeOf(t, shop+`---
type: MeshTrace
name: web-only
mesh: default
labels: {kuma.io/effect: shadow}
spec:
  targetRef: {kind: Dataplane, labels: {app: web}}
  default: {backends: [{type: Zipkin, zipkin: {url: "http://zipkin:9411"}}]}
`)
	if _, body = get(t, shadow, "/meshes/default/meshtraces/web-only/_resources/dataplanes"); body["total"] != 1.0 {
		t.Errorf("a shadow policy's dataplanes: %s, want web-1 (Kuma's PolicyMatches ignores the effect)", jsonOf(body))
	}
	if status, _ = get(t, s, "/meshes/default/meshtraces/nope/_resources/dataplanes"); status != 404 {
		t.Errorf("a missing policy: %d, want 404", status)
	}
}

func TestMeshGatewayRules(t *testing.T) {
	in, err := readCase("dataplanes/_rules/meshgateway")
	if err != nil {
		t.Fatal(err)
	}
	s := storeOf(t, in)
	status, body := get(t, s, "/meshes/default/meshgateways/the-gateway/_rules")
	got := jsonOf(body)
	if status != 200 || !strings.Contains(got, `"resource":{"labels":{},"mesh":"default","name":"the-gateway","type":"MeshGateway"}`) ||
		!strings.Contains(got, `"name":"mt-on-gateway"`) || !strings.Contains(got, `"type":"MeshProxyPatch"`) {
		t.Errorf("meshgateways _rules: %d %s", status, got)
	}
	if status, _ = get(t, s, "/meshes/default/meshgateways/nope/_rules"); status != 404 {
		t.Errorf("a missing MeshGateway: %d, want 404", status)
	}
}

func readCase(name string) (string, error) {
	b, err := readFileString(apiCases + "/" + name + ".input.yaml")
	return b, err
}

func TestUnknownPathIs404(t *testing.T) {
	s := storeOf(t, shop)
	for _, p := range []string{"/meshes/default/dataplanes/web-1", "/zones", "/meshes/default/dataplanes/web-1/_nope"} {
		if status, body := get(t, s, p); status != 404 || body["type"] != "/std-errors" {
			t.Errorf("GET %s: %d %v, want a 404 error body", p, status, body)
		}
	}
}

// TestKubernetesManifestsAsKumaStoresThem: a namespaced manifest is named
// name.namespace with the namespace and display-name labels, so its KRI names its
// namespace; a later document with the same identity replaces the earlier.
func TestKubernetesManifestsAsKumaStoresThem(t *testing.T) {
	s := storeOf(t, shop+`---
apiVersion: kuma.io/v1alpha1
kind: MeshTrace
metadata:
  name: tracing
  namespace: kuma-system
  labels: {kuma.io/mesh: default}
spec:
  targetRef: {kind: Mesh}
  default: {sampling: {overall: 10}, backends: [{type: Zipkin, zipkin: {url: "http://old:9411"}}]}
---
apiVersion: kuma.io/v1alpha1
kind: MeshTrace
metadata:
  name: tracing
  namespace: kuma-system
  labels: {kuma.io/mesh: default}
spec:
  targetRef: {kind: Mesh}
  default: {backends: [{type: Zipkin, zipkin: {url: "http://new:9411"}}]}
`)
	status, body := get(t, s, "/meshes/default/dataplanes/web-1/_policies")
	got := jsonOf(body)
	if status != 200 || strings.Count(got, `"kri":"kri_mtr_default__kuma-system_tracing_"`) != 1 ||
		!strings.Contains(got, "http://new:9411") || strings.Contains(got, "sampling") {
		t.Errorf("_policies: %d %s", status, got)
	}
}

func TestConfigRefusesWhatItDoesNotBuild(t *testing.T) {
	s := storeOf(t, shop+"---\ntype: DataplaneInsight\nname: web-1\nmesh: default\n")
	status, body := get(t, s, "/meshes/default/dataplanes/web-1/_config")
	if status != 501 || !strings.Contains(jsonOf(body), "the mesh holds") {
		t.Errorf("_config of a proxy with neighbours: %d %s, want 501 saying why", status, jsonOf(body))
	}
}

func TestViewNamesTheItemThatSetsEachField(t *testing.T) {
	s := storeOf(t, shop+`---
type: MeshTimeout
name: defaults
mesh: default
spec:
  targetRef: {kind: Mesh}
  to: [{targetRef: {kind: Mesh}, default: {connectionTimeout: 2s, http: {requestTimeout: 15s}}}]
`)
	v, err := s.View("default", "web-1")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := v.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"outbound kri_msvc_default___backend_http port 80 http",
		"connectionTimeout: 2s  ← defaults spec.to[0]",
		"http.requestTimeout: 5s  ← on-route spec.to[1], over defaults spec.to[0]",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text view lacks %q:\n%s", want, b.String())
		}
	}
	if _, err := s.View("default", "nope"); err == nil {
		t.Error("View of a missing Dataplane: no error")
	}
}

func readFileString(p string) (string, error) {
	b, err := os.ReadFile(p)
	return string(b), err
}

// TestViewShowsClientGroups: the `from` items Kuma keeps per client group
// (MeshTrafficPermission) appear per group, each field named by the item that
// applies to the group, not by the policy's first item.
func TestViewShowsClientGroups(t *testing.T) {
	s := storeOf(t, shop+`---
type: MeshTrafficPermission
name: allow-web
mesh: default
spec:
  targetRef: {kind: Dataplane, name: backend-1}
  from:
    - targetRef: {kind: Mesh}
      default: {action: Deny}
    - targetRef: {kind: MeshSubset, tags: {kuma.io/service: web}}
      default: {action: Allow}
`)
	v, err := s.View("default", "backend-1")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := v.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"clients kuma.io/service=web\n      action: Allow  ← allow-web spec.from[1], over allow-web spec.from[0]",
		"clients kuma.io/service=!web\n      action: Deny  ← allow-web spec.from[0]\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text view lacks %q:\n%s", want, b.String())
		}
	}
}
