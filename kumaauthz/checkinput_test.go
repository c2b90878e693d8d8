package kumaauthz

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/api"
)

func objs(t *testing.T, docs string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, d := range strings.Split(docs, "\n---\n") {
		m := map[string]any{}
		if err := yaml.Unmarshal([]byte(d), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, &unstructured.Unstructured{Object: m})
	}
	return out
}

const proxyObjects = `apiVersion: kuma.io/v1alpha1
kind: Dataplane
metadata: {name: backend-1, namespace: shop, labels: {kuma.io/mesh: payments, team: a}}
spec:
  networking:
    address: 10.0.0.1
    inbound:
      - {name: http, port: 8080, tags: {kuma.io/service: backend_shop_svc_80, version: v2}}
      - {port: 9090, tags: {kuma.io/service: backend-admin_shop_svc_9090}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    metadata: {labels: {app: web, kuma.io/mesh: payments}}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {selector: {app: web}, ports: [{name: http, port: 80}, {name: grpc, port: 81}]}
---
apiVersion: v1
kind: Service
metadata: {name: other, namespace: shop}
spec: {selector: {app: other}, ports: [{port: 80}]}`

// TestProxyFromObjects builds destination proxies from a Dataplane's inbounds
// and from a Deployment with the Service that selects it.
func TestProxyFromObjects(t *testing.T) {
	os := objs(t, proxyObjects)
	q := ProxyQuery{Namespace: "shop", DefaultMesh: "default"}
	for _, tt := range []struct {
		name, port, section string
		want                Proxy
		err                 string
	}{
		{name: "backend-1", section: "http", want: Proxy{Mesh: "payments", Namespace: "shop", Name: "backend-1", Section: "http",
			Tags: map[string]string{api.LabelMesh: "payments", "team": "a", api.ServiceTag: "backend_shop_svc_80", "version": "v2"}}},
		{name: "Dataplane/backend-1", port: "9090", want: Proxy{Mesh: "payments", Namespace: "shop", Name: "backend-1", Section: "9090",
			Tags: map[string]string{api.LabelMesh: "payments", "team": "a", api.ServiceTag: "backend-admin_shop_svc_9090"}}},
		{name: "backend-1", err: "give --section (inbound name) or --port"},
		{name: "web", port: "grpc", want: Proxy{Mesh: "payments", Namespace: "shop",
			Tags: map[string]string{"app": "web", api.LabelMesh: "payments", api.LabelNamespace: "shop", api.ServiceTag: "web_shop_svc_81"}}},
		{name: "Deployment/web", want: Proxy{Mesh: "payments", Namespace: "shop",
			Tags: map[string]string{"app": "web", api.LabelMesh: "payments", api.LabelNamespace: "shop", api.ServiceTag: "web_shop_svc_80"}}},
		{name: "StatefulSet/web", err: "no StatefulSet/web in namespace"},
		{name: "nope", err: "no Dataplane or Deployment nope"},
	} {
		q.Name, q.Port, q.Section = tt.name, tt.port, tt.section
		got, err := ProxyFromObjects(os, q)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		// Labels (what a MeshIdentity selects by) are TestProxyLabels'.
		if d := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Proxy{}, "Labels")); d != "" {
			t.Errorf("%s %s%s (-want +got):\n%s", tt.name, tt.port, tt.section, d)
		}
	}
}

// TestProxyLabels: a proxy's Dataplane labels are what Kuma computes, which
// MeshIdentity selects by: a Dataplane's own labels (no inbound tags), a
// workload's pod labels with the computed ones (the ServiceAccount as
// kuma.io/workload, zone labels when the zone is known).
func TestProxyLabels(t *testing.T) {
	os := objs(t, `apiVersion: kuma.io/v1alpha1
kind: Dataplane
metadata: {name: dp-1, namespace: shop, labels: {team: a}}
spec:
  networking:
    address: 10.0.0.1
    inbound: [{port: 80, tags: {kuma.io/service: backend, version: v2}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    metadata: {labels: {app: web}}
    spec: {serviceAccountName: web-sa}`)
	for _, tt := range []struct {
		name, zone string
		want       map[string]string
	}{
		{"Dataplane/dp-1", "", map[string]string{"team": "a", "kuma.io/mesh": "default"}},
		{"Deployment/web", "", map[string]string{"app": "web", "k8s.kuma.io/namespace": "shop", "kuma.io/mesh": "default",
			"kuma.io/proxy-type": "sidecar", "k8s.kuma.io/service-account": "web-sa", "kuma.io/workload": "web-sa"}},
		{"Deployment/web", "z1", map[string]string{"app": "web", "k8s.kuma.io/namespace": "shop", "kuma.io/mesh": "default",
			"kuma.io/proxy-type": "sidecar", "k8s.kuma.io/service-account": "web-sa", "kuma.io/workload": "web-sa",
			"kuma.io/zone": "z1", "kuma.io/origin": "zone", "kuma.io/env": "kubernetes"}},
	} {
		px, err := ProxyFromObjects(os, ProxyQuery{Name: tt.name, Namespace: "shop", DefaultMesh: "default", Zone: tt.zone})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if d := cmp.Diff(tt.want, px.Labels); d != "" {
			t.Errorf("%s zone %q (-want +got):\n%s", tt.name, tt.zone, d)
		}
	}
}

// TestParseClient covers the client syntaxes and their errors.
func TestParseClient(t *testing.T) {
	c, err := ParseClient("kuma.io/service=web,version=v2", "m")
	if err != nil || !cmp.Equal(c.SANs, []string{"spiffe://m/web", "kuma://version/v2"}) {
		t.Errorf("tags: %+v %v", c, err)
	}
	if c, err := ParseClient("spiffe://m.z.mesh.local/ns/a/sa/b", "m"); err != nil || !cmp.Equal(c.SANs, []string{"spiffe://m.z.mesh.local/ns/a/sa/b"}) {
		t.Errorf("SPIFFE: %+v %v", c, err)
	}
	for in, want := range map[string]string{
		"":                     "no client",
		"web":                  "unknown identity syntax",
		"spiffe://":            "is not a SPIFFE ID",
		"spiffe://a:80/b":      "is not a SPIFFE ID",
		"a=b,a=c":              "given twice",
		"=x":                   "is not key=value",
		"kuma.io/service=web,": "is not key=value",
	} {
		if _, err := ParseClient(in, "m"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", in, err, want)
		}
	}
}

// FuzzParseClient: any string is a client or a clear error, never a panic, and a
// client always has at least one URI SAN.
func FuzzParseClient(f *testing.F) {
	for _, s := range []string{"kuma.io/service=web,version=v2", "spiffe://default/web", "spiffe://%zz", "a==b", ",,", "spiffe://x/y?z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseClient(s, "default")
		if err == nil && len(c.SANs) == 0 {
			t.Fatalf("%q: a client without SAN", s)
		}
	})
}
