package kumainspect

import (
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
)

// TestProxies lists Dataplanes mesh by mesh in name order, a Kubernetes one with
// the namespace and name it was written with.
func TestProxies(t *testing.T) {
	in := `type: Mesh
name: default
---
type: Mesh
name: other
---
type: Dataplane
name: b
mesh: default
networking: {address: 10.0.0.2, inbound: [{port: 80, tags: {kuma.io/service: b}}]}
---
type: Dataplane
name: a
mesh: other
networking: {address: 10.0.0.1, inbound: [{port: 80, tags: {kuma.io/service: a}}]}
---
apiVersion: kuma.io/v1alpha1
kind: Dataplane
mesh: default
metadata: {name: web-1, namespace: shop, labels: {kuma.io/mesh: default}}
spec:
  networking: {address: 10.0.0.3, inbound: [{port: 80, tags: {kuma.io/service: web}}]}
`
	reg := api.DefaultRegistry()
	objs, err := Decode(strings.NewReader(in), "test", reg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStore(objs, reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range s.Proxies() {
		got = append(got, p.Mesh+":"+p.Name+":"+p.Namespace+":"+p.Shown)
	}
	if want := "default:b::b default:web-1.shop:shop:web-1 other:a::a"; strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", strings.Join(got, " "), want)
	}
}
