package main

import (
	"strings"
	"testing"
)

const k8sShop = "../../examples/inspect/k8s-shop"

// TestInspectProxyFromWorkloads shows a proxy Kuma would derive from the
// example's Deployment and Services: its name, the inbound from the Service
// port, and the outbounds to the derived MeshServices with the merged confs.
func TestInspectProxyFromWorkloads(t *testing.T) {
	out, errOut, code := runInspect(t, "", "--proxy", "Deployment/web", "-n", "shop", k8sShop)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"Dataplane web.shop, mesh default (kri_dp_default__shop_web_)",
		"inbound kri_dp_default__shop_web_http port 8080 http",
		"outbound kri_msvc_default__shop_backend_http port 80 http",
		"http.requestTimeout: 2s  ← web-to-backend.shop spec.to[0], over mesh-defaults.kuma-system spec.to[0]",
		"http.numRetries: 3  ← retry-backend.shop spec.to[0]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	js, _, code := runInspect(t, "", "--proxy", "deployment/backend", "-n", "shop", "-o", "json", k8sShop)
	if code != exitOK || !strings.Contains(js, `"kri_dp_default__shop_backend_http"`) {
		t.Errorf("-o json exit %d:\n%s", code, js)
	}
}

// TestInspectProxyNotThere names the proxies the input has.
func TestInspectProxyNotThere(t *testing.T) {
	_, errOut, code := runInspect(t, "", "--proxy", "Deployment/payments", "-n", "shop", k8sShop)
	if code != exitUsage {
		t.Fatalf("exit %d, want %d", code, exitUsage)
	}
	for _, want := range []string{"no proxy Deployment/payments in namespace shop", "--proxy Deployment/web -n shop  (mesh default, Dataplane web.shop)", "--proxy Deployment/backend -n shop"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("missing %q in:\n%s", want, errOut)
		}
	}
	_, errOut, code = runInspect(t, "", "--proxy", "web", k8sShop)
	if code != exitUsage || !strings.Contains(errOut, "give KIND/NAME") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	_, errOut, code = runInspect(t, "", "--proxy", "Deployment/web", "--dataplane", "web.shop", k8sShop)
	if code != exitUsage || !strings.Contains(errOut, "give one of --kuma-api PATH, --dataplane NAME or --proxy KIND/NAME") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// TestInspectDataplaneOfUniversalInput: --proxy Dataplane/NAME is --dataplane.
func TestInspectProxyDataplane(t *testing.T) {
	a, _, code := runInspect(t, "", "--proxy", "Dataplane/web-1", "../../examples/inspect/shop")
	b, _, code2 := runInspect(t, "", "--dataplane", "web-1", "../../examples/inspect/shop")
	if code != exitOK || code2 != exitOK || a != b {
		t.Errorf("exit %d/%d; --proxy Dataplane/web-1:\n%s\n--dataplane web-1:\n%s", code, code2, a, b)
	}
}

// TestInspectKustomization renders a kustomization as lint does: the patch's
// 500ms is what the proxy gets. The Mesh and Namespace come from a plain file.
func TestInspectKustomization(t *testing.T) {
	out, errOut, code := runInspect(t, "", "--proxy", "Deployment/web", "-n", "shop", k8sShop+"/mesh.yaml", "../../examples/inspect/k8s-shop-kustomized")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := "http.requestTimeout: 500ms  ← web-to-backend.shop spec.to[0]"; !strings.Contains(out, want) {
		t.Errorf("missing %q in:\n%s", want, out)
	}
	_, errOut, code = runInspect(t, "", "--no-kustomize", "--proxy", "Deployment/web", "-n", "shop", k8sShop+"/mesh.yaml", "../../examples/inspect/k8s-shop-kustomized")
	if code != exitUsage || !strings.Contains(errOut, "no proxy Deployment/web in namespace shop") {
		t.Errorf("--no-kustomize: exit %d: %s", code, errOut)
	}
}

// TestInspectInventory: the policies as PATH, the workloads as --inventory.
func TestInspectInventory(t *testing.T) {
	out, errOut, code := runInspect(t, "", "--proxy", "Deployment/web", "-n", "shop",
		"--inventory", k8sShop+"/web.yaml", "--inventory", k8sShop+"/backend.yaml", "--inventory", k8sShop+"/mesh.yaml", k8sShop+"/policies.yaml")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "http.requestTimeout: 2s  ← web-to-backend.shop") {
		t.Errorf("output:\n%s", out)
	}
}

// TestInspectGatewayProxy shows the builtin gateway proxy of a
// MeshGatewayInstance, by the instance and by the MeshGateway it serves.
func TestInspectGatewayProxy(t *testing.T) {
	byInstance, errOut, code := runInspect(t, "", "--proxy", "MeshGatewayInstance/edge-gateway", "-n", "edge", "testdata/inspect/gateway")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(byInstance, "Dataplane edge-gateway.edge, mesh default") {
		t.Errorf("output:\n%s", byInstance)
	}
	byGateway, errOut, code := runInspect(t, "", "--proxy", "MeshGateway/edge", "testdata/inspect/gateway")
	if code != exitOK || byGateway != byInstance {
		t.Errorf("exit %d %s; by MeshGateway:\n%s\nby instance:\n%s", code, errOut, byGateway, byInstance)
	}
}

// TestInspectHelmChart renders a chart as lint does, in the release namespace
// -n names and with --set: the chart's Deployment becomes the proxy and its
// MeshTimeout carries the value set.
func TestInspectHelmChart(t *testing.T) {
	out, errOut, code := runInspect(t, "", "--proxy", "Deployment/web", "-n", "shop", "--set", "requestTimeout=750ms",
		k8sShop+"/mesh.yaml", "testdata/inspect/chart")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"Dataplane web.shop, mesh default", "http.requestTimeout: 750ms  ← web-timeouts.shop spec.to[0]"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}
