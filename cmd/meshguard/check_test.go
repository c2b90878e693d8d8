package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/access"
)

var (
	kumaCheckDir    = filepath.Join(repoRoot, "examples", "check", "kuma")
	linkerdCheckDir = filepath.Join(repoRoot, "examples", "check", "linkerd")
	seed000File     = filepath.Join("testdata", "check", "seed000.yaml")
	seed001File     = filepath.Join("testdata", "check", "seed001.yaml")
)

// checkCases are the answers pinned by golden files: the worked examples of both
// seeds and the realistic sets of examples/check, text and JSON, ALLOW and DENY.
var checkCases = []struct {
	name string
	args []string
	code int
}{
	{"kuma-owner-override", []string{"check", kumaCheckDir, "--from", "kuma.io/service=cart_shop_svc_80,app=cart,k8s.kuma.io/namespace=shop", "--to", "Deployment/payments", "--to-namespace", "shop"}, 1},
	{"kuma-namespace-allow", []string{"check", kumaCheckDir, "--from", "kuma.io/service=web_shop_svc_80,app=web,k8s.kuma.io/namespace=shop", "--to", "payments", "--to-namespace", "shop"}, 0},
	{"kuma-shadow-deny", []string{"check", kumaCheckDir, "--from", "kuma.io/service=old_legacy_svc_80,k8s.kuma.io/namespace=legacy", "--to", "app=payments,kuma.io/service=payments_shop_svc_80", "--to-namespace", "shop"}, 0},
	{"kuma-mesh-deny", []string{"check", kumaCheckDir, "--from", "spiffe://default/web_other_svc_80", "--to", "Deployment/payments", "--to-namespace", "shop"}, 1},
	{"kuma-no-policy", []string{"check", kumaCheckDir, "--from", "kuma.io/service=web", "--to", "app=x", "--to-namespace", "other", "--to-mesh", "other"}, 1},
	{"seed000-web", []string{"check", seed000File, "--from", "kuma.io/service=web,env=prod", "--to", "kuma.io/service=backend"}, 0},
	{"seed000-zone", []string{"check", seed000File, "--from", "kuma.io/service=db,kuma.io/zone=us-east", "--to", "kuma.io/service=backend"}, 1},
	{"seed001-allow", []string{"check", seed001File, "--from", "spiffe://trust-domain.mesh/ns/writers/sa/w1", "--to", "app=backend"}, 0},
	{"seed001-shadow", []string{"check", seed001File, "--from", "spiffe://trust-domain.mesh/ns/legacy/sa/old", "--to", "app=backend"}, 0},
	{"seed001-operator-deny", []string{"check", seed001File, "--from", "spiffe://trust-domain.mesh/ns/default/sa/api-gateway", "--to", "app=backend"}, 1},
	{"seed001-default", []string{"check", seed001File, "--from", "spiffe://trust-domain.mesh/ns/default/sa/web", "--to", "app=frontend"}, 1},
	// The two calls of make demo (hack/demo/check.go), on the files it applies.
	{"demo-allow", []string{"check", filepath.Join(repoRoot, "examples", "valid"), "--from", "kuma.io/service=frontend_frontend-ns_svc_8080", "--to", "app=backend,kuma.io/service=backend_backend-ns_svc_8080", "--to-namespace", "backend-ns"}, 0},
	{"demo-deny", []string{"check", filepath.Join(repoRoot, "examples", "valid"), "--from", "kuma.io/service=ops-console_ops-ns_svc_8080", "--to", "app=backend,kuma.io/service=backend_backend-ns_svc_8080", "--to-namespace", "backend-ns"}, 1},
	{"linkerd-route", []string{"check", linkerdCheckDir, "--from", "shop/gateway", "--to", "Deployment/web", "--to-namespace", "shop", "--port", "8080", "--method", "GET", "--path", "/api/orders"}, 0},
	{"linkerd-route-deny", []string{"check", linkerdCheckDir, "--from", "web.shop.serviceaccount.identity.linkerd.cluster.local", "--to", "web", "--to-namespace", "shop", "--port", "http", "--method", "GET", "--path", "/api"}, 1},
	{"linkerd-network", []string{"check", linkerdCheckDir, "--from-ip", "192.168.1.4", "--to", "Deployment/web", "--to-namespace", "shop", "--port", "http", "--method", "GET", "--path", "/"}, 0},
	{"linkerd-404", []string{"check", linkerdCheckDir, "--from", "shop/gateway", "--to", "Deployment/web", "--to-namespace", "shop", "--port", "8080", "--method", "DELETE", "--path", "/admin"}, 1},
	{"linkerd-default", []string{"check", linkerdCheckDir, "--from-ip", "10.2.3.4", "--to", "Deployment/web", "--to-namespace", "shop", "--port", "9990"}, 1},
}

// TestCheckGolden runs every case as text and as JSON and compares with the
// golden files (go test ./cmd/meshguard -run TestCheckGolden -update rewrites
// them); the JSON must decode into the documented shape with no unknown field.
func TestCheckGolden(t *testing.T) {
	for _, tt := range checkCases {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := cli(t, "", tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, out, errOut)
			}
			golden(t, filepath.Join("check", tt.name+".golden.txt"), out)
			out, errOut, code = cli(t, "", append(tt.args, "-o", "json")...)
			if code != tt.code {
				t.Fatalf("-o json: exit %d, want %d\n%s", code, tt.code, errOut)
			}
			dec := json.NewDecoder(strings.NewReader(out))
			dec.DisallowUnknownFields()
			var r access.Answer
			if err := dec.Decode(&r); err != nil {
				t.Fatalf("-o json is not the documented shape: %v\n%s", err, out)
			}
			if want := map[int]string{0: "ALLOW", 1: "DENY"}[tt.code]; r.Decision != want {
				t.Errorf("decision %s with exit %d", r.Decision, code)
			}
			golden(t, filepath.Join("check", tt.name+".golden.json"), out)
		})
	}
}

// TestCheckErrors: bad input exits 2 with a message that says what is wrong.
func TestCheckErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown identity", []string{"check", kumaCheckDir, "--from", "web", "--to", "app=x"}, "unknown identity syntax"},
		{"bad SPIFFE ID", []string{"check", kumaCheckDir, "--from", "spiffe://", "--to", "app=x"}, "is not a SPIFFE ID"},
		{"no client", []string{"check", kumaCheckDir, "--to", "app=x"}, "no client: give --from, the caller whose access is checked"},
		{"blank client", []string{"check", kumaCheckDir, "--from", " ", "--to", "app=x"}, "e.g. --from kuma.io/service="},
		{"no destination", []string{"check", kumaCheckDir, "--from", "kuma.io/service=web"}, "no destination"},
		{"destination not in the input", []string{"check", kumaCheckDir, "--from", "kuma.io/service=web", "--to", "Deployment/nope", "--to-namespace", "shop"}, "no Deployment/nope in namespace"},
		{"bad tags", []string{"check", kumaCheckDir, "--from", "kuma.io/service=web,=x", "--to", "app=x"}, "is not key=value"},
		{"linkerd identity of another domain", []string{"check", linkerdCheckDir, "--from", "a.b.serviceaccount.identity.linkerd.other.org", "--to", "Deployment/web", "--to-namespace", "shop"}, "trust domain cluster.local"},
		{"linkerd workload missing", []string{"check", linkerdCheckDir, "--from", "shop/a", "--to", "Deployment/nope", "--to-namespace", "shop"}, "no workload Deployment/nope"},
		{"linkerd port needed", []string{"check", linkerdCheckDir, "--from", "shop/a", "--to", "Deployment/web", "--to-namespace", "shop"}, "declares 3 ports: give --port"},
		{"linkerd flags on kuma", []string{"check", kumaCheckDir, "--from", "kuma.io/service=web", "--from-ip", "10.0.0.1", "--to", "app=x"}, "--from-ip is for Linkerd"},
		{"no input", []string{"check", "--from", "kuma.io/service=web", "--to", "app=x"}, "needs at least one PATH"},
		{"live cluster", []string{"check", "--kubeconfig", "/nonexistent", "--from", "kuma.io/service=web", "--to", "app=x"}, "--kubeconfig"},
		{"bad mesh type", []string{"check", kumaCheckDir, "--mesh-type", "istio", "--from", "x", "--to", "app=x"}, "--mesh-type must be"},
		{"bad output", []string{"check", kumaCheckDir, "-o", "csv", "--from", "kuma.io/service=web", "--to", "app=x"}, "--output must be text, json or yaml"},
		{"unreadable input", []string{"check", "-", "--from", "kuma.io/service=web", "--to", "app=x"}, "cannot be read"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := cli(t, "kind: [unclosed\n", tt.args...)
			if code != exitUsage || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q\n%s", code, errOut, tt.want, out)
			}
		})
	}
}

// TestCheckReadsStdinAndNotesSkipped: - reads standard input, and a policy the
// webhook would deny is left out with a note, not silently.
func TestCheckReadsStdinAndNotesSkipped(t *testing.T) {
	in := `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: allow-web, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from:
    - targetRef: {kind: MeshService, name: web}
      default: {action: Allow}
---
apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: broken, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from:
    - targetRef: {kind: Mesh}
      default: {action: Maybe}
`
	out, errOut, code := cli(t, in, "check", "-", "--from", "kuma.io/service=web", "--to", "kuma.io/service=backend")
	if code != 0 || !strings.Contains(out, "kuma-system/allow-web spec.from[0]") || !strings.Contains(out, "(<stdin>:7)") {
		t.Errorf("exit %d\n%s", code, out)
	}
	if !strings.Contains(errOut, "skipped kuma-system/broken") {
		t.Errorf("no note for the denied policy: %q", errOut)
	}
}

// TestCheckJSONIsStable: the JSON of one answer is byte-identical across runs
// (no map-order or pointer leaks).
func TestCheckJSONIsStable(t *testing.T) {
	args := append(checkCases[0].args, "-o", "json")
	first, _, _ := cli(t, "", args...)
	for i := 0; i < 5; i++ {
		again, _, _ := cli(t, "", args...)
		if !bytes.Equal([]byte(first), []byte(again)) {
			t.Fatalf("run %d differs:\n%s\n---\n%s", i, first, again)
		}
	}
}
