package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const (
	kumaDiffOld = "../../examples/diff/kuma-timeout/old"
	kumaDiffNew = "../../examples/diff/kuma-timeout/new"
)

// TestDiffKumaConfigGolden: the example pair (a MeshTimeout moves
// connectionTimeout on the outbound to backend of every proxy, a MeshRetry
// changes, a consumer MeshTimeout of the frontends, a new proxy) in every format.
func TestDiffKumaConfigGolden(t *testing.T) {
	for _, f := range []struct{ output, file string }{
		{"text", "diff/kuma-timeout.golden.txt"},
		{"json", "diff/kuma-timeout.golden.json"},
		{"markdown", "diff/kuma-timeout.golden.md"},
	} {
		t.Run(f.output, func(t *testing.T) {
			out, errOut, code := cli(t, "", "diff", "-o", f.output, kumaDiffOld, kumaDiffNew)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, f.file, out)
		})
	}
}

// TestDiffKumaConfigJSONShape holds the documented shape of kumaConfig.
func TestDiffKumaConfigJSONShape(t *testing.T) {
	out, _, _ := cli(t, "", "diff", "-o", "json", kumaDiffOld, kumaDiffNew)
	var doc struct {
		KumaConfig struct {
			OldProxies, NewProxies, Compared, Changed int
			AddedProxies                              []string `json:"addedProxies"`
			Changes                                   []struct {
				Mesh, Kind, Scope, Target, Where, Field, Change string
				Old, New                                        any
				Before, After                                   *struct{ Kind, Policy, Path string }
				Proxies, Namespaces                             []string
			} `json:"changes"`
		} `json:"kumaConfig"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	k := doc.KumaConfig
	if k.OldProxies != 5 || k.NewProxies != 6 || k.Compared != 5 || k.Changed != 5 || strings.Join(k.AddedProxies, ",") != "web/frontend-3" {
		t.Fatalf("counts: %+v", k)
	}
	var found bool
	for _, c := range k.Changes {
		if c.Kind == "MeshTimeout" && c.Field == "connectionTimeout" {
			found = true
			if c.Scope != "outbound" || c.Target != "kri_msvc_default__shop_backend_http" || c.Old != "5s" || c.New != "2s" ||
				c.Before.Path != "spec.to[0]" || c.After.Path != "spec.to[1]" || c.After.Policy != "kuma-system/mesh-timeouts" ||
				len(c.Proxies) != 5 || strings.Join(c.Namespaces, ",") != "shop,web" || c.Change != "changed" || c.Mesh != "default" {
				t.Errorf("connectionTimeout change: %+v", c)
			}
		}
	}
	if !found {
		t.Errorf("no connectionTimeout change in %s", out)
	}
}

// TestDiffKumaConfigFailOn: configuration changes are warnings.
func TestDiffKumaConfigFailOn(t *testing.T) {
	for _, tt := range []struct {
		failOn string
		code   int
	}{{"warning", exitFindings}, {"error", exitOK}, {"none", exitOK}} {
		_, errOut, code := cli(t, "", "diff", "--fail-on", tt.failOn, kumaDiffOld, kumaDiffNew)
		if code != tt.code {
			t.Errorf("--fail-on %s: exit %d, want %d: %s", tt.failOn, code, tt.code, errOut)
		}
	}
	if _, _, code := cli(t, "", "diff", "--fail-on", "warning", kumaDiffOld, kumaDiffOld); code != exitOK {
		t.Errorf("no change under --fail-on warning: exit %d", code)
	}
}

// TestDiffKumaConfigLeavesOutDenied: a policy the webhook would deny never reaches
// a proxy, so it changes nothing and is noted.
func TestDiffKumaConfigLeavesOutDenied(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"mesh.yaml", "policies.yaml"} {
		b, err := os.ReadFile(filepath.Join(kumaDiffOld, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "policies.yaml" {
			// A MeshTimeout whose duration Kuma rejects.
			b = append(b, []byte(`---
apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: broken
  namespace: kuma-system
spec:
  targetRef:
    kind: Mesh
  to:
    - targetRef:
        kind: Mesh
      default:
        connectionTimeout: -1s
`)...)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := cli(t, "", "diff", kumaDiffOld, dir)
	if code != exitOK || !strings.Contains(errOut, "skipped kuma-system/broken: the webhook would deny it") ||
		!strings.Contains(out, "Kuma proxy configuration: no proxy's configuration changes (5 compared)") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}

// TestDiffKumaConfigGitBase: --git-base reads the old side from the commit, as
// for authorization.
func TestDiffKumaConfigGitBase(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	gitRun := gitIn(t, repo)
	mesh := filepath.Join(repo, "mesh")
	copyExample := func(from string) {
		for _, f := range []string{"mesh.yaml", "policies.yaml"} {
			copyFile(t, filepath.Join(from, f), filepath.Join(mesh, f))
		}
	}
	gitRun("init", "-q")
	copyExample(kumaDiffOld)
	gitRun("add", ".")
	gitRun("commit", "-qm", "old")
	copyExample(kumaDiffNew)
	out, errOut, code := cli(t, "", "diff", "--git-base", "HEAD", "--fail-on", "warning", mesh)
	want, _, _ := cli(t, "", "diff", kumaDiffOld, kumaDiffNew)
	strip := func(s string) string { return s[strings.Index(s, "\n"):] }
	if code != exitFindings || strip(out) != strip(want) {
		t.Errorf("exit %d: %s\n%s\nwant:\n%s", code, errOut, out, want)
	}
}

// TestDiffKumaConfigImpliesTheMesh: a set without its Mesh (Kuma creates the
// default mesh itself) is compared as if an empty Mesh were there.
func TestDiffKumaConfigImpliesTheMesh(t *testing.T) {
	sides := map[string]string{}
	for _, side := range []string{kumaDiffOld, kumaDiffNew} {
		dir := t.TempDir()
		mesh, err := os.ReadFile(filepath.Join(side, "mesh.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		// Drop the first document, the Mesh.
		rest := string(mesh)[strings.Index(string(mesh), "\n---\n")+5:]
		copyFile(t, filepath.Join(side, "policies.yaml"), filepath.Join(dir, "policies.yaml"))
		if err := os.WriteFile(filepath.Join(dir, "mesh.yaml"), []byte(rest), 0o644); err != nil {
			t.Fatal(err)
		}
		sides[side] = dir
	}
	out, errOut, code := cli(t, "", "diff", sides[kumaDiffOld], sides[kumaDiffNew])
	if code != exitOK || !strings.Contains(out, "connectionTimeout: 5s → 2s") || !strings.Contains(out, "5 of 5 proxies compared") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}

// TestDiffKumaConfigDerivesProxies: on Kubernetes the proxies are the workloads'
// (kumak8s derives their Dataplanes, as for inspect): a mesh-wide timeout change
// over examples/inspect/k8s-shop changes both Deployments' outbounds.
func TestDiffKumaConfigDerivesProxies(t *testing.T) {
	const shop = "../../examples/inspect/k8s-shop"
	dir := t.TempDir()
	entries, err := os.ReadDir(shop)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		copyFile(t, filepath.Join(shop, e.Name()), filepath.Join(dir, e.Name()))
	}
	p := filepath.Join(dir, "policies.yaml")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), "connectionTimeout: 5s", "connectionTimeout: 1s", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := cli(t, "", "diff", shop, dir)
	want := "MeshTimeout connectionTimeout: 5s → 1s on the outbound to MeshService shop/backend port http of 2 proxies in shop: shop/backend, shop/web"
	if code != exitOK || !strings.Contains(out, want) {
		t.Errorf("exit %d\n%s%s\nwant a line %q", code, out, errOut, want)
	}
}

// TestDiffKumaConfigUniversal: Universal-format sets (examples/inspect/shop) are
// compared as Kuma's Universal store names them.
func TestDiffKumaConfigUniversal(t *testing.T) {
	const shop = "../../examples/inspect/shop"
	dir := t.TempDir()
	for _, f := range []string{"mesh.yaml", "policies.yaml"} {
		copyFile(t, filepath.Join(shop, f), filepath.Join(dir, f))
	}
	p := filepath.Join(dir, "policies.yaml")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), "requestTimeout: 2s", "requestTimeout: 3s", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := cli(t, "", "diff", shop, dir)
	want := "MeshTimeout http.requestTimeout: 2s → 3s on the outbound to MeshService backend port http of 1 proxy: web-1\n      set by MeshTimeout web-to-backend spec.to[0]"
	if code != exitOK || !strings.Contains(out, want) {
		t.Errorf("exit %d\n%s%s\nwant %q", code, out, errOut, want)
	}
}
