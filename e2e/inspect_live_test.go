//go:build e2e

package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/e2e/localcp"
)

// TestInspectLiveCluster stores examples/inspect/k8s-shop (a Namespace labelled
// for injection, two Deployments with their Services, a Mesh with MeshServices
// Exclusive, MeshTimeouts and a MeshRetry) through the API server and meshguard's
// webhooks, in its own namespace, and asks `meshguard inspect --kubeconfig` for
// the web Deployment's proxy: the proxy and MeshServices Kuma's control plane
// would derive, and the merged confs, must be those the files give.
func TestInspectLiveCluster(t *testing.T) {
	bin := meshguardBin(t)
	const ns = "e2e-inspect"
	var manifests []string
	files, _ := filepath.Glob(repo("examples/inspect/k8s-shop/*.yaml"))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.ReplaceAll(string(raw), "namespace: shop", "namespace: "+ns)
		manifests = append(manifests, strings.ReplaceAll(text, "name: shop", "name: "+ns))
	}
	stream := strings.Join(manifests, "\n---\n")
	if err := localcp.EnsureNamespace(context.Background(), env.client, "kuma-system"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := kubectl(t, stream, "apply", "-f", "-"); err != nil {
		t.Fatalf("kubectl apply: %v", err)
	}
	// The stack is shared: the Mesh and the policies go; the Namespace stays (the
	// local control plane has no namespace controller to finish deleting one).
	t.Cleanup(func() {
		kubectl(t, "", "delete", "--ignore-not-found", "--wait=false", "-n", ns, "deployments,services", "--all")
		kubectl(t, "", "delete", "--ignore-not-found", "--wait=false", "-n", ns, "meshtimeouts.kuma.io,meshretries.kuma.io", "--all")
		kubectl(t, "", "delete", "--ignore-not-found", "--wait=false", "-n", "kuma-system", "meshtimeouts.kuma.io", "mesh-defaults")
		kubectl(t, "", "delete", "--ignore-not-found", "--wait=false", "meshes.kuma.io", "default")
	})
	inspect := func(args ...string) (string, string, int) {
		cmd := exec.Command(bin, append([]string{"inspect", "--kubeconfig", env.kubeconfig}, args...)...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		return string(out), stderr.String(), code
	}
	out, errOut, code := inspect("--proxy", "Deployment/web", "-n", ns)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	t.Logf("meshguard inspect --kubeconfig --proxy Deployment/web -n %s:\n%s", ns, out)
	// It says which releases the cluster runs (inspect follows Kuma's newest rules
	// whichever it is, so only what it found).
	if want := "meshguard inspect: kuma: control plane not read (no Deployment kuma-system/kuma-control-plane); CRDs: 31 installed (31 served versions), the 31 CRDs of kuma-2.14, schema for schema"; !strings.Contains(errOut, want) {
		t.Errorf("inspect's notes lack %q:\n%s", want, errOut)
	}
	for _, want := range []string{
		"Dataplane web." + ns + ", mesh default (kri_dp_default__" + ns + "_web_)",
		"inbound kri_dp_default__" + ns + "_web_http port 8080 http",
		"outbound kri_msvc_default__" + ns + "_backend_http port 80 http",
		"http.requestTimeout: 2s  ← web-to-backend." + ns + " spec.to[0], over ",
		"http.numRetries: 3  ← retry-backend." + ns + " spec.to[0]",
		"outbound kri_msvc_default__" + ns + "_web_http port 80 http",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q", want)
		}
	}
	// Other tests of the suite store mesh-wide policies in kuma-system too (the
	// examples' defaults), merged before or after this one by name: mesh-defaults
	// is among the items of these fields, wherever it stands in the order.
	for _, field := range []string{"http.requestTimeout: 2s  ← ", "connectionTimeout: 5s  ← "} {
		if line := lineWith(out, field); !strings.Contains(line, "mesh-defaults.kuma-system spec.to[0]") {
			t.Errorf("the %q line does not name mesh-defaults.kuma-system spec.to[0]: %q", field, line)
		}
	}
	// A cluster running Kuma stores a Dataplane per pod: inspect reads it and
	// shows it for its Deployment instead of deriving one.
	stored := `apiVersion: kuma.io/v1alpha1
kind: Dataplane
mesh: default
metadata:
  name: backend-5d8f9-x2x4p
  namespace: ` + ns + `
  labels: {app: backend, kuma.io/mesh: default}
spec:
  networking:
    address: 10.244.0.7
    inbound:
      - port: 9090
        name: http
        tags: {kuma.io/service: backend_` + ns + `_svc_80, app: backend, k8s.kuma.io/namespace: ` + ns + `, kuma.io/protocol: http}
`
	if _, _, err := kubectl(t, stored, "apply", "-f", "-"); err != nil {
		t.Fatalf("kubectl apply Dataplane: %v", err)
	}
	t.Cleanup(func() {
		kubectl(t, "", "delete", "--ignore-not-found", "--wait=false", "-n", ns, "dataplanes.kuma.io", "--all")
	})
	out, errOut, code = inspect("--proxy", "Deployment/backend", "-n", ns)
	if code != 0 || !strings.Contains(out, "Dataplane backend-5d8f9-x2x4p."+ns+", mesh default") || !strings.Contains(out, "_backend-5d8f9-x2x4p_http port 9090 http") {
		t.Errorf("stored Dataplane: exit %d %s\n%s", code, errOut, out)
	}
	_, errOut, code = inspect("--proxy", "Deployment/payments", "-n", ns)
	if code != 2 || !strings.Contains(errOut, "--proxy Deployment/backend -n "+ns) {
		t.Errorf("unknown proxy: exit %d, stderr:\n%s", code, errOut)
	}
}

// lineWith is the first line of out that contains s, trimmed; "" when none.
func lineWith(out, s string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}
