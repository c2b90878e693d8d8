package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// linkerdPreviewInput mixes a Kuma policy with a Linkerd set (a Server authorized two
// ways, one with no authorization, a namespace annotation) and one Server the webhook
// would deny.
const linkerdPreviewInput = `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: global, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from:
    - targetRef: {kind: Mesh}
      default: {action: Deny}
---
apiVersion: v1
kind: Namespace
metadata:
  name: shop
  annotations: {config.linkerd.io/default-inbound-policy: all-authenticated}
---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: web-http, namespace: shop}
spec: {podSelector: {matchLabels: {app: web}}, port: 8080, proxyProtocol: HTTP/1}
---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: admin, namespace: shop}
spec: {podSelector: {matchLabels: {app: web}}, port: 9990}
---
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: broken, namespace: shop}
spec: {port: 80}
---
apiVersion: policy.linkerd.io/v1beta1
kind: ServerAuthorization
metadata: {name: web-lan, namespace: shop}
spec:
  server: {name: web-http}
  client:
    unauthenticated: true
    networks: [{cidr: 10.0.0.0/8, except: [10.9.0.0/16]}]
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata: {name: web-sa, namespace: shop}
spec:
  targetRef: {group: policy.linkerd.io, kind: Server, name: web-http}
  requiredAuthenticationRefs: [{kind: ServiceAccount, name: cart, namespace: checkout}]
`

// golden compares got with cmd/meshguard/testdata/name (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (rerun with -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs, rerun with -update if intended:\n%s", name, got)
	}
}

// TestPreviewLinkerdJSON checks the combined document: Kuma previews unchanged under
// "previews", the Linkerd preview under "linkerd", the denied Server skipped.
func TestPreviewLinkerdJSON(t *testing.T) {
	out, errOut, code := cli(t, linkerdPreviewInput, "preview", "-o", "json", "-")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "skipped shop/broken") {
		t.Errorf("denied Server not reported: %q", errOut)
	}
	var got struct {
		Previews []struct {
			Policies []string `json:"policies"`
		} `json:"previews"`
		Linkerd struct {
			Servers []struct {
				Namespace, Name, Policy string
				Clients                 []struct{ Kind, Name, Via string }
			} `json:"servers"`
			Defaults []json.RawMessage `json:"defaults"`
		} `json:"linkerd"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	if len(got.Previews) != 1 || got.Previews[0].Policies[0] != "kuma-system/global" {
		t.Errorf("kuma previews %+v", got.Previews)
	}
	if len(got.Linkerd.Servers) != 2 || len(got.Linkerd.Defaults) != 2 {
		t.Fatalf("linkerd %+v", got.Linkerd)
	}
	if s := got.Linkerd.Servers[1]; s.Name != "web-http" || len(s.Clients) != 2 || s.Clients[1].Name != "checkout/cart" {
		t.Errorf("web-http %+v", s)
	}
	if s := got.Linkerd.Servers[0]; s.Name != "admin" || s.Clients[0].Kind != "none" {
		t.Errorf("admin %+v", s)
	}
	golden(t, "preview-linkerd.golden.json", out)

	y, _, code := cli(t, linkerdPreviewInput, "preview", "-o", "yaml", "-")
	var fromYAML map[string]any
	if err := yaml.Unmarshal([]byte(y), &fromYAML); code != exitOK || err != nil || fromYAML["linkerd"] == nil || fromYAML["previews"] == nil {
		t.Errorf("yaml: exit %d, %v, keys %v", code, err, fromYAML)
	}
}

// TestPreviewLinkerdTable checks -o table: a line per Kuma group, then the table.
func TestPreviewLinkerdTable(t *testing.T) {
	out, errOut, code := cli(t, linkerdPreviewInput, "preview", "-o", "table", "-")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"kuma ", "SERVER", "shop/web-http", "ServerAuthorization shop/web-lan", "10.0.0.0/8 minus 10.9.0.0/16", "default shop"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	golden(t, "preview-linkerd.golden.txt", out)
}

// TestPreviewWithoutLinkerd keeps the Kuma-only document free of a "linkerd" key and
// rejects unknown output formats.
func TestPreviewWithoutLinkerd(t *testing.T) {
	kumaOnly, _, _ := strings.Cut(linkerdPreviewInput, "---\napiVersion: v1\n")
	out, errOut, code := cli(t, kumaOnly, "preview", "-o", "json", "-")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc) != 1 || doc["previews"] == nil {
		t.Errorf("kuma-only document %v: %s", err, out)
	}
	if out, _, _ := cli(t, kumaOnly, "preview", "-o", "table", "-"); strings.Contains(out, "SERVER") {
		t.Errorf("kuma-only table prints a Linkerd table:\n%s", out)
	}
	if _, _, code := cli(t, kumaOnly, "preview", "-o", "xml", "-"); code != exitUsage {
		t.Errorf("-o xml: exit %d", code)
	}
	if _, _, code := cli(t, kumaOnly, "preview", "--linkerd-default-policy", "open", "-"); code != exitUsage {
		t.Errorf("--linkerd-default-policy open: exit %d", code)
	}
}
