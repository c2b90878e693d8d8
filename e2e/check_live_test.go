//go:build e2e

package e2e

import (
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/api"
)

// TestCheckLiveCluster stores the Kuma and Linkerd sets of examples/check through
// the API server (and meshguard's webhooks) and asks `meshguard check
// --kubeconfig` about them: the answers must be those the files give, with the
// deciding objects named by their place in the cluster.
func TestCheckLiveCluster(t *testing.T) {
	bin := meshguardBin(t)
	for _, dir := range []string{"examples/check/kuma", "examples/check/linkerd"} {
		namespaces(t, load(t, repo(dir)))
		if _, _, err := kubectl(t, "", "apply", "-f", repo(dir)); err != nil {
			t.Fatalf("kubectl apply -f %s: %v", dir, err)
		}
		// The stack is shared: a mesh-wide deny left behind would change what
		// later tests' previews merge. Namespaces stay: the local control plane
		// has no namespace controller to finish deleting one.
		objs := load(t, repo(dir))
		t.Cleanup(func() {
			for _, o := range objs {
				if o.GetKind() == api.KindNamespace {
					continue
				}
				resource := strings.ToLower(o.GetKind())
				if g := o.GroupVersionKind().Group; g != "" {
					resource += "." + g
				}
				kubectl(t, "", "delete", "--ignore-not-found", "--wait=false", "-n", o.GetNamespace(), resource, o.GetName())
			}
		})
	}
	for _, tt := range []struct {
		name     string
		args     []string
		code     int
		decision string
		policy   string
		path     string
		file     string
	}{
		{"kuma owner override", []string{"--from", "kuma.io/service=cart_shop_svc_80,app=cart,k8s.kuma.io/namespace=shop", "--to", "Deployment/payments", "--to-namespace", "shop"},
			1, "DENY", "shop/payments-owner", "spec.from[0]", "cluster:shop/MeshTrafficPermission/payments-owner"},
		{"kuma namespace allow", []string{"--from", "kuma.io/service=web_shop_svc_80,app=web,k8s.kuma.io/namespace=shop", "--to", "Deployment/payments", "--to-namespace", "shop"},
			0, "ALLOW", "shop/shop-clients", "spec.from[0]", "cluster:shop/MeshTrafficPermission/shop-clients"},
		{"linkerd route", []string{"--from", "shop/gateway", "--to", "Deployment/web", "--to-namespace", "shop", "--port", "8080", "--method", "GET", "--path", "/api/orders"},
			0, "ALLOW", "shop/api-frontends", "spec.requiredAuthenticationRefs[0]", "cluster:shop/AuthorizationPolicy/api-frontends"},
		{"linkerd namespace default", []string{"--from-ip", "10.2.3.4", "--to", "Deployment/web", "--to-namespace", "shop", "--port", "9990"},
			1, "DENY", "shop", "metadata.annotations[config.linkerd.io/default-inbound-policy]", "cluster:Namespace/shop"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, append([]string{"check", "--kubeconfig", env.kubeconfig, "-o", "json"}, tt.args...)...)
			out, err := cmd.Output()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
				t.Logf("stderr: %s", ee.Stderr)
				// It says which releases the cluster runs, and checks against them.
				if want := "the 31 CRDs of kuma-2.14, schema for schema; checking against kuma 2.14 (detected)"; !strings.Contains(string(ee.Stderr), want) {
					t.Errorf("check's notes lack %q", want)
				}
			}
			var r struct {
				Decision  string
				DecidedBy struct{ Policy, Path, File string }
			}
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatalf("exit %d, not JSON (%v):\n%s", code, err, out)
			}
			if code != tt.code || r.Decision != tt.decision || r.DecidedBy.Policy != tt.policy || r.DecidedBy.Path != tt.path || !strings.HasPrefix(r.DecidedBy.File, tt.file) {
				t.Errorf("exit %d %+v, want exit %d %s by %s %s in %s\n%s", code, r, tt.code, tt.decision, tt.policy, tt.path, tt.file, out)
			}
		})
	} // map --kubeconfig reads the cluster as check does: the cell of the first
	// case is check's answer for that pair.
	t.Run("map", func(t *testing.T) {
		cmd := exec.Command(bin, "map", "--kubeconfig", env.kubeconfig, "--mesh-type", "kuma", "-o", "json")
		out, err := cmd.Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				t.Logf("stderr: %s", ee.Stderr)
			}
			t.Fatalf("map --kubeconfig: %v", err)
		}
		var m access.Map
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("map -o json: %v\n%.2000s", err, out)
		}
		var dest *access.MapDestination
		var client *access.MapClient
		for i := range m.Destinations {
			if m.Destinations[i].ID == "shop/Deployment/payments:80" {
				dest = &m.Destinations[i]
			}
		}
		for i := range m.Clients {
			if m.Clients[i].ID == "app=cart@default" {
				client = &m.Clients[i]
			}
		}
		if dest == nil || client == nil {
			t.Fatalf("no row shop/Deployment/payments:80 or column app=cart@default in the cluster's map:\n%.3000s", out)
		}
		cell, ok := m.Cell(*dest, *client)
		by := cell.Answer.DecidedBy
		if !ok || cell.Answer.Decision != "DENY" || by.Policy != "shop/payments-owner" || by.Path != "spec.from[0]" || !strings.HasPrefix(by.File, "cluster:") {
			t.Errorf("cell %+v (judged %v), want DENY by shop/payments-owner spec.from[0] in the cluster, as check answers", cell.Answer, ok)
		}
	})
}
