package kumak8s

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func objects(t *testing.T, text string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(text, "\n---\n") {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		if m != nil {
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
	return out
}

func exampleObjects(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	dir := filepath.Join("..", "examples", "inspect", "k8s-shop")
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	var out []*unstructured.Unstructured
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, objects(t, string(data))...)
	}
	return out
}

func find(res Result, kind, ns, name string) map[string]any {
	for _, o := range res.Objects {
		if o.GetKind() == kind && o.GetNamespace() == ns && o.GetName() == name {
			return o.Object
		}
	}
	return nil
}

// TestDeriveDeployments derives the proxies and MeshServices of the k8s-shop
// example: one proxy per Deployment named after it, one inbound per Service
// port with Kuma's tags, the injector's transparent proxy, and a MeshService per
// Service.
func TestDeriveDeployments(t *testing.T) {
	res := Derive(exampleObjects(t), Options{})
	if len(res.Notes) > 0 {
		t.Fatalf("notes: %v", res.Notes)
	}
	want := []Proxy{
		{Kind: "Deployment", Name: "backend", Namespace: "shop", Mesh: "default", Dataplane: "backend"},
		{Kind: "Deployment", Name: "web", Namespace: "shop", Mesh: "default", Dataplane: "web"},
	}
	if !reflect.DeepEqual(res.Proxies, want) {
		t.Fatalf("proxies %+v, want %+v", res.Proxies, want)
	}
	web := find(res, "Dataplane", "shop", "web")
	got, _ := yaml.Marshal(web)
	wantYAML := `apiVersion: kuma.io/v1alpha1
kind: Dataplane
mesh: default
metadata:
  labels:
    app: web
    k8s.kuma.io/namespace: shop
    k8s.kuma.io/service-account: web
    kuma.io/mesh: default
    kuma.io/proxy-type: sidecar
    kuma.io/workload: web
  name: web
  namespace: shop
spec:
  networking:
    inbound:
    - health:
        ready: true
      name: http
      port: 8080
      protocol: http
      tags:
        app: web
        k8s.kuma.io/namespace: shop
        k8s.kuma.io/service-name: web
        k8s.kuma.io/service-port: "80"
        kuma.io/protocol: http
        kuma.io/service: web_shop_svc_80
    transparentProxying:
      ipFamilyMode: DualStack
      redirectPortInbound: 15006
      redirectPortOutbound: 15001
`
	if string(got) != wantYAML {
		t.Errorf("Dataplane web:\n%s\nwant:\n%s", got, wantYAML)
	}
	ms, _ := yaml.Marshal(find(res, "MeshService", "shop", "backend"))
	wantMS := `apiVersion: kuma.io/v1alpha1
kind: MeshService
metadata:
  labels:
    k8s.kuma.io/is-headless-service: "false"
    k8s.kuma.io/service-name: backend
    kuma.io/env: kubernetes
    kuma.io/managed-by: k8s-controller
    kuma.io/mesh: default
  name: backend
  namespace: shop
spec:
  ports:
  - appProtocol: http
    name: http
    port: 80
    targetPort: http
  selector:
    dataplaneTags:
      app: backend
      k8s.kuma.io/namespace: shop
`
	if string(ms) != wantMS {
		t.Errorf("MeshService backend:\n%s\nwant:\n%s", ms, wantMS)
	}
}

// TestDeriveWhatKumaSkips: a namespace without injection gives no proxy and no
// MeshService; a mesh with MeshServices Disabled gives proxies but no
// MeshService; a pod label overrides the namespace's; the input's own Dataplane
// and MeshService win; a Pod whose Deployment is in the input is left to it.
func TestDeriveWhatKumaSkips(t *testing.T) {
	in := objects(t, `apiVersion: v1
kind: Namespace
metadata: {name: plain}
---
apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {kuma.io/sidecar-injection: enabled}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: a, namespace: plain}
spec: {template: {metadata: {labels: {app: a}}, spec: {containers: [{name: a}]}}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: b, namespace: plain}
spec: {template: {metadata: {labels: {app: b, kuma.io/sidecar-injection: enabled}}, spec: {containers: [{name: b}]}}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: c, namespace: shop}
spec: {template: {metadata: {labels: {app: c, kuma.io/sidecar-injection: disabled}}, spec: {containers: [{name: c}]}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: shop}
spec: {template: {metadata: {labels: {app: d}}, spec: {containers: [{name: d}]}}}
---
apiVersion: v1
kind: Pod
metadata:
  name: d-5c9f7-x2x4p
  namespace: shop
  labels: {app: d}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: d-5c9f7, controller: true, uid: u1}]
spec: {containers: [{name: d}]}
---
apiVersion: kuma.io/v1alpha1
kind: Dataplane
metadata: {name: d, namespace: shop}
spec: {networking: {address: 10.0.0.1, inbound: [{port: 1, tags: {kuma.io/service: given}}]}}
---
apiVersion: v1
kind: Service
metadata: {name: d, namespace: shop}
spec: {selector: {app: d}, ports: [{port: 80}]}`)
	res := Derive(in, Options{})
	var got []string
	for _, p := range res.Proxies {
		got = append(got, p.Kind+"/"+p.Namespace+"/"+p.Name+"->"+p.Dataplane)
		if p.Given != (p.Name == "d") {
			t.Errorf("%s: Given = %v", p.Name, p.Given)
		}
	}
	if want := []string{"StatefulSet/plain/b->b", "Deployment/shop/d->d"}; !reflect.DeepEqual(got, want) {
		t.Errorf("proxies %v, want %v", got, want)
	}
	if find(res, "Dataplane", "shop", "d") != nil {
		t.Error("the input's Dataplane d was derived again")
	}
	if find(res, "MeshService", "shop", "d") != nil {
		t.Error("a MeshService was derived in a mesh whose meshServices are Disabled")
	}
	if find(res, "Mesh", "", "default") == nil {
		t.Error("the default Mesh Kuma creates is missing")
	}
}

// TestDeriveGateways: a MeshGatewayInstance gives the builtin gateway Dataplane
// with its tags and kuma.io/service `<name>_<ns>_svc`; its Deployment (owned by
// it) gives no second one; a delegated gateway Pod gets the gateway tags of its
// first inbound, and its Service no MeshService.
func TestDeriveGateways(t *testing.T) {
	in := objects(t, `apiVersion: kuma.io/v1alpha1
kind: Mesh
metadata: {name: default}
spec: {meshServices: {mode: Exclusive}}
---
apiVersion: v1
kind: Namespace
metadata: {name: edge, labels: {kuma.io/sidecar-injection: enabled}}
---
apiVersion: kuma.io/v1alpha1
kind: MeshGatewayInstance
metadata: {name: edge-gw, namespace: edge}
spec: {replicas: 1, serviceType: LoadBalancer, tags: {team: edge}}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: edge-gw
  namespace: edge
  ownerReferences: [{apiVersion: kuma.io/v1alpha1, kind: MeshGatewayInstance, name: edge-gw, controller: true, uid: u2}]
spec: {template: {metadata: {labels: {app: edge-gw}, annotations: {kuma.io/gateway: builtin, kuma.io/tags: '{"kuma.io/service":"edge-gw_edge_svc"}'}}, spec: {containers: [{name: kuma-gateway}]}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: contour, namespace: edge}
spec: {template: {metadata: {labels: {app: contour}, annotations: {kuma.io/gateway: enabled}}, spec: {containers: [{name: envoy, ports: [{containerPort: 8080}]}]}}}
---
apiVersion: v1
kind: Service
metadata: {name: contour, namespace: edge}
spec: {selector: {app: contour}, ports: [{port: 80, targetPort: 8080}]}`)
	res := Derive(in, Options{})
	if len(res.Proxies) != 2 {
		t.Fatalf("proxies %+v", res.Proxies)
	}
	gw, _ := yaml.Marshal(find(res, "Dataplane", "edge", "edge-gw")["spec"])
	if want := "networking:\n  gateway:\n    tags:\n      kuma.io/service: edge-gw_edge_svc\n      team: edge\n    type: BUILTIN\n"; string(gw) != want {
		t.Errorf("builtin gateway spec:\n%s\nwant:\n%s", gw, want)
	}
	labels := find(res, "Dataplane", "edge", "edge-gw")["metadata"].(map[string]any)["labels"].(map[string]any)
	if labels["kuma.io/proxy-type"] != "gateway" || labels["kuma.io/sidecar-injection"] != "disabled" {
		t.Errorf("builtin gateway labels %v", labels)
	}
	dg, _ := yaml.Marshal(find(res, "Dataplane", "edge", "contour")["spec"].(map[string]any)["networking"].(map[string]any)["gateway"])
	if want := "tags:\n  app: contour\n  k8s.kuma.io/namespace: edge\n  k8s.kuma.io/service-name: contour\n  k8s.kuma.io/service-port: \"80\"\n  kuma.io/protocol: tcp\n  kuma.io/service: contour_edge_svc_80\n"; string(dg) != want {
		t.Errorf("delegated gateway:\n%s\nwant:\n%s", dg, want)
	}
	if find(res, "MeshService", "edge", "contour") != nil {
		t.Error("a Service backing gateway pods got a MeshService")
	}
}

// TestDeriveStoredDataplane: on a cluster running Kuma, the Dataplane of a
// Deployment's pod (named after the pod, with the template's labels) stands for
// the Deployment; none is derived beside it.
func TestDeriveStoredDataplane(t *testing.T) {
	in := objects(t, `apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {kuma.io/sidecar-injection: enabled}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec: {template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web}]}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web-admin, namespace: shop}
spec: {template: {metadata: {labels: {app: web-admin}}, spec: {containers: [{name: web}]}}}
---
apiVersion: kuma.io/v1alpha1
kind: Dataplane
mesh: default
metadata: {name: web-admin-6b7c9-k2x9z, namespace: shop, labels: {app: web-admin, kuma.io/mesh: default}}
spec: {networking: {address: 10.0.0.9, inbound: [{port: 8080, tags: {kuma.io/service: web-admin_shop_svc_80}}]}}`)
	res := Derive(in, Options{})
	want := []Proxy{
		{Kind: "Deployment", Name: "web", Namespace: "shop", Mesh: "default", Dataplane: "web"},
		{Kind: "Deployment", Name: "web-admin", Namespace: "shop", Mesh: "default", Dataplane: "web-admin-6b7c9-k2x9z", Given: true},
	}
	if !reflect.DeepEqual(res.Proxies, want) {
		t.Errorf("proxies %+v, want %+v", res.Proxies, want)
	}
	if find(res, "Dataplane", "shop", "web-admin") != nil {
		t.Error("a Dataplane was derived beside the stored one")
	}
}

// TestDeriveServiceSelection: every Service whose whole selector the pod's
// labels hold gives inbounds, in Service name order; one that asks for a label
// the pod lacks, has no selector, or is kuma.io/ignore gives none.
func TestDeriveServiceSelection(t *testing.T) {
	in := objects(t, `apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {kuma.io/sidecar-injection: enabled}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec: {template: {metadata: {labels: {app: web, tier: front, version: v1}}, spec: {containers: [{name: web}]}}}
---
apiVersion: v1
kind: Service
metadata: {name: z-front, namespace: shop}
spec: {selector: {tier: front}, ports: [{port: 81}]}
---
apiVersion: v1
kind: Service
metadata: {name: a-web, namespace: shop}
spec: {selector: {app: web, tier: front}, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: back, namespace: shop}
spec: {selector: {app: web, tier: back}, ports: [{port: 82}]}
---
apiVersion: v1
kind: Service
metadata: {name: manual, namespace: shop}
spec: {ports: [{port: 83}]}
---
apiVersion: v1
kind: Service
metadata: {name: ignored, namespace: shop, annotations: {kuma.io/ignore: "true"}}
spec: {selector: {app: web}, ports: [{port: 84}]}`)
	res := Derive(in, Options{})
	nw := find(res, "Dataplane", "shop", "web")["spec"].(map[string]any)["networking"].(map[string]any)
	var got []string
	for _, e := range nw["inbound"].([]any) {
		got = append(got, e.(map[string]any)["tags"].(map[string]any)["kuma.io/service"].(string))
	}
	if want := []string{"a-web_shop_svc_80", "z-front_shop_svc_81"}; !reflect.DeepEqual(got, want) {
		t.Errorf("inbounds %v, want %v", got, want)
	}
}
