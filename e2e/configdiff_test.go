//go:build e2e

package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestConfigDiffWarning stores, through kubectl and the real API server, a mesh
// of its own with two Dataplanes, a MeshService and a mesh-wide MeshTimeout; once
// the webhook's caches hold them, a dry-run of the MeshTimeout with a shorter
// connectionTimeout says how many proxies' configuration it changes and how, and
// the API server's audit log carries the config-diff annotation naming them.
func TestConfigDiffWarning(t *testing.T) {
	st := local(t)
	for _, ns := range []string{"kuma-system", "e2e-cfg"} {
		if err := ensureNS(ns); err != nil {
			t.Fatal(err)
		}
	}
	dataplane := func(name, ip string) string {
		return `apiVersion: kuma.io/v1alpha1
kind: Dataplane
mesh: e2e-cfg
metadata:
  name: ` + name + `
  namespace: e2e-cfg
  labels: {kuma.io/mesh: e2e-cfg, app: web}
spec:
  networking:
    address: ` + ip + `
    inbound:
      - port: 8080
        name: http
        tags: {kuma.io/service: web, kuma.io/protocol: http}
---
`
	}
	const mesh = `apiVersion: kuma.io/v1alpha1
kind: Mesh
metadata: {name: e2e-cfg}
spec:
  meshServices: {mode: Exclusive}
---
apiVersion: kuma.io/v1alpha1
kind: MeshService
metadata:
  name: backend
  namespace: e2e-cfg
  labels: {kuma.io/mesh: e2e-cfg}
spec:
  selector:
    dataplaneTags: {kuma.io/service: backend}
  ports:
    - {name: http, port: 80, targetPort: 8080, appProtocol: http}
---
`
	timeout := func(d string) string {
		return `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: e2e-cfg-timeouts
  namespace: kuma-system
  labels: {kuma.io/mesh: e2e-cfg}
spec:
  targetRef: {kind: Mesh}
  to:
    - targetRef: {kind: Mesh}
      default: {connectionTimeout: ` + d + `}
`
	}
	t.Cleanup(func() {
		kubectl(t, "", "delete", "--ignore-not-found", "-n", "kuma-system", "meshtimeout", "e2e-cfg-timeouts")
		kubectl(t, "", "delete", "--ignore-not-found", "-n", "e2e-cfg", "dataplane", "web-1", "web-2")
		kubectl(t, "", "delete", "--ignore-not-found", "-n", "e2e-cfg", "meshservice", "backend")
		kubectl(t, "", "delete", "--ignore-not-found", "mesh", "e2e-cfg")
	})
	if _, stderr, err := kubectl(t, mesh+dataplane("web-1", "10.0.0.1")+dataplane("web-2", "10.0.0.2")+timeout("5s"), "apply", "-f", "-"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	const want = "config-diff: changes the effective configuration of 2 of 2 proxies it selects"
	deadline := time.Now().Add(60 * time.Second)
	var stderr string
	for {
		var err error
		if _, stderr, err = kubectl(t, timeout("2s"), "apply", "--dry-run=server", "-f", "-"); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(stderr, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("60 s after the mesh was stored, the dry-run does not say %q:\n%s", want, stderr)
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("dry-run warnings:\n%s", stderr)
	for _, w := range []string{
		"config-diff: 2 proxies: MeshTimeout connectionTimeout: 5s → 2s on outbound to MeshService e2e-cfg/backend port http",
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("dry-run lacks %q:\n%s", w, stderr)
		}
	}
	ann := auditAnnotation(t, st.CP.AuditLog, "e2e-cfg-timeouts", "config-diff")
	var doc struct {
		Selected, Evaluated int
		Changed             []string
	}
	if err := json.Unmarshal([]byte(ann), &doc); err != nil || doc.Selected != 2 || strings.Join(doc.Changed, ",") != "e2e-cfg/web-1,e2e-cfg/web-2" {
		t.Errorf("config-diff annotation (%v): %s", err, ann)
	}
}
