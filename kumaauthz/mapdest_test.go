package kumaauthz

import "testing"

// TestSpiffeIDOf: a MeshIdentity's SPIFFE ID for a proxy, from its templates
// (read by IdentityFromObject) or Kuma's defaults, Kubernetes and Universal.
func TestSpiffeIDOf(t *testing.T) {
	all := objs(t, `apiVersion: kuma.io/v1alpha1
kind: MeshIdentity
metadata: {name: custom, namespace: kuma-system, labels: {kuma.io/mesh: default}}
spec:
  selector: {dataplane: {matchLabels: {app: web}}}
  spiffeID: {trustDomain: "{{ .Mesh }}.example", path: "/team/{{ label \"team\" }}/{{ .ServiceAccount }}"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    metadata: {labels: {app: web, team: blue}}
    spec: {serviceAccountName: web-sa}`)
	id, err := IdentityFromObject(all[0])
	if err != nil {
		t.Fatal(err)
	}
	px, err := ProxyFromObjects(all, ProxyQuery{Name: "Deployment/web", Namespace: "shop", DefaultMesh: "default", Zone: "east"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		id   Identity
		px   Proxy
		want string
		ok   bool
	}{
		{id, px, "spiffe://default.example/team/blue/web-sa", true},
		{Identity{Mesh: "default"}, px, "spiffe://default.east.mesh.local/ns/shop/sa/web-sa", true},
		{Identity{Mesh: "default"}, Proxy{Mesh: "default", Labels: map[string]string{"kuma.io/workload": "api"}}, "spiffe://default..mesh.local/workload/api", true},
		{Identity{Mesh: "default", Path: `/{{ label "missing" }}`}, px, "", false},
	} {
		got, ok := tt.id.SpiffeIDOf(tt.px)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("%+v: got %q %v, want %q %v", tt.id, got, ok, tt.want, tt.ok)
		}
	}
	if cl := MapClientOf(px, []Identity{id}); len(cl.SANs) != 1 || cl.SpiffeID != "spiffe://default.example/team/blue/web-sa" {
		t.Errorf("client of a proxy with an identity: %+v", cl)
	}
}
