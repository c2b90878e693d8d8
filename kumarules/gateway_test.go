package kumarules

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meshguard/meshguard/api"
)

// TestBuiltinGatewaySelectedThroughItsMeshGateway: a builtin gateway Dataplane is
// selected by policies that target the MeshGateway serving it (by its listeners)
// and by Mesh ones, not by Dataplane ones nor by a MeshGateway that does not
// serve it, as Kuma's matchers select it.
func TestBuiltinGatewaySelectedThroughItsMeshGateway(t *testing.T) {
	dir := t.TempDir()
	in := `type: MeshGateway
name: edge
mesh: default
selectors:
  - match:
      kuma.io/service: edge-gw
conf:
  listeners:
    - port: 8080
      protocol: HTTP
    - port: 8443
      protocol: HTTP
      tags:
        listener: tls
---
type: MeshGateway
name: other
mesh: default
selectors:
  - match:
      kuma.io/service: other-gw
conf:
  listeners:
    - port: 9090
      protocol: HTTP
---
type: Dataplane
name: gw-1
mesh: default
networking:
  address: 10.0.0.1
  gateway:
    type: BUILTIN
    tags:
      kuma.io/service: edge-gw
---
type: MeshTimeout
name: on-edge
mesh: default
spec:
  targetRef: {kind: MeshGateway, name: edge}
  to: [{targetRef: {kind: Mesh}, default: {idleTimeout: 20s}}]
---
type: MeshTimeout
name: on-edge-tls
mesh: default
spec:
  targetRef: {kind: MeshGateway, name: edge, tags: {listener: tls}}
  from: [{targetRef: {kind: Mesh}, default: {idleTimeout: 5s}}]
---
type: MeshTimeout
name: on-other
mesh: default
spec:
  targetRef: {kind: MeshGateway, name: other}
  to: [{targetRef: {kind: Mesh}, default: {idleTimeout: 1s}}]
---
type: MeshTimeout
name: on-dataplanes
mesh: default
spec:
  targetRef: {kind: Dataplane}
  to: [{targetRef: {kind: Mesh}, default: {idleTimeout: 2s}}]
---
type: MeshTimeout
name: on-mesh
mesh: default
spec:
  targetRef: {kind: Mesh}
  to: [{targetRef: {kind: Mesh}, default: {connectionTimeout: 3s}}]
`
	path := filepath.Join(dir, "in.yaml")
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	objects, err := readPolicies(path)
	if err != nil {
		t.Fatal(err)
	}
	var dp Dataplane
	for _, o := range objects {
		if o.Type == api.KindDataplane {
			dp = Dataplane{Meta: o.Meta, Address: "10.0.0.1", Gateway: gatewayBuiltin, GatewayTags: map[string]string{"kuma.io/service": "edge-gw"}}
		}
	}
	m, err := New(api.DefaultRegistry()).MatchedPolicies(api.KindMeshTimeout, dp, objects)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range m.Policies {
		names = append(names, p.Name)
	}
	if want := []string{"on-mesh", "on-edge", "on-edge-tls"}; !equalStrings(names, want) {
		t.Fatalf("selected %v, want %v (Mesh first, then the MeshGateway ones, fewer listener tags first; not other's, not Dataplane's)", names, want)
	}
	if _, ok := m.FromRules["10.0.0.1:8443"]; !ok {
		t.Errorf("no from rules on the tls listener 10.0.0.1:8443: %v", m.FromRules)
	}
	if fr := m.FromRules["10.0.0.1:8080"]; len(fr.Rules) != 0 {
		t.Errorf("on-edge-tls (listener: tls) reached the 8080 listener: %v", fr.Rules)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
