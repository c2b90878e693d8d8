package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/access"
)

// TestCheckMeshIdentity: on Kuma 2.14 a proxy a Ready MeshIdentity selects is
// programmed with `rules` MeshTrafficPermissions only (kumahq/kuma #16910,
// #18740): a `from` Allow no longer lets anyone in, and the answer says which
// MeshIdentity is why. A MeshIdentity whose status is not Ready, or that
// selects other proxies, changes nothing.
func TestCheckMeshIdentity(t *testing.T) {
	dir := filepath.Join("testdata", "check", "identity")
	in := func(files ...string) []string {
		var out []string
		for _, f := range files {
			out = append(out, filepath.Join(dir, f))
		}
		return out
	}
	web := []string{"--from", "kuma.io/service=web_shop_svc_80"}
	webSpiffe := []string{"--from", "spiffe://default.zone-1.mesh.local/ns/shop/sa/web"}
	payments := []string{"--to", "Deployment/payments", "--to-namespace", "shop"}
	for _, tt := range []struct {
		name     string
		files    []string
		client   []string
		dest     []string
		decision string
		identity string // the meshIdentity of the answer, "" for none
		want     []string
	}{
		{"from allow without identity", in("policies.yaml"), web, payments, "ALLOW", "", []string{"kuma-system/allow-web spec.from[0]"}},
		{"identity drops from", in("policies.yaml", "identity.yaml"), web, payments, "DENY", "kuma-system/shop-identity",
			[]string{"MeshIdentity kuma-system/shop-identity selects the proxy", "`from` policies are not", "denies every client",
				"kuma-system/allow-web uses `from`, which is not programmed"}},
		{"identity not ready", in("policies.yaml", "identity-not-ready.yaml"), web, payments, "ALLOW", "",
			[]string{"gives no identity yet: its status is Ready=False", "kuma-system/allow-web spec.from[0]"}},
		{"identity selects other proxies", in("policies.yaml", "identity.yaml"), web, []string{"--to", "Deployment/legacy", "--to-namespace", "old"}, "ALLOW", "",
			[]string{"kuma-system/allow-web spec.from[0]"}},
		{"identity with rules: allowed SPIFFE ID", in("policies.yaml", "identity.yaml", "rules.yaml"), webSpiffe, payments, "ALLOW", "kuma-system/shop-identity",
			[]string{"shop/allow-web-spiffe spec.rules[0].default.allow[0]"}},
		{"identity with rules: tag client denied", in("policies.yaml", "identity.yaml", "rules.yaml"), web, payments, "DENY", "kuma-system/shop-identity",
			[]string{"kuma-system/allow-web uses `from`, which is not programmed"}},
		{"identity selects by labels given in --to", in("policies.yaml", "identity.yaml"), web,
			[]string{"--to", "app=payments,k8s.kuma.io/namespace=shop,kuma.io/service=payments_shop_svc_80", "--to-namespace", "shop"}, "DENY", "kuma-system/shop-identity", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append(append([]string{"check"}, tt.files...), tt.client...), tt.dest...)
			out, errOut, code := cli(t, "", append(args, "-o", "json")...)
			var r access.Answer
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("exit %d: %v\n%s%s", code, err, out, errOut)
			}
			if r.Decision != tt.decision || code != map[string]int{"ALLOW": 0, "DENY": 1}[tt.decision] {
				t.Errorf("decision %s (exit %d), want %s\n%s", r.Decision, code, tt.decision, out)
			}
			got := ""
			if r.MeshIdentity != nil {
				got = r.MeshIdentity.Policy
				if r.MeshIdentity.File == "" || r.MeshIdentity.Line == 0 {
					t.Errorf("the MeshIdentity has no place: %+v", *r.MeshIdentity)
				}
			}
			if got != tt.identity {
				t.Errorf("meshIdentity %q, want %q", got, tt.identity)
			}
			text, _, _ := cli(t, "", args...)
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("answer lacks %q:\n%s", w, text)
				}
			}
		})
	}
}

// TestDiffMeshIdentity: adding a MeshIdentity is reported as every client of the
// proxies it selects losing the access `from` policies gave them (not "no proxy
// group changes access"), and taking it away again as a widening that fails
// --fail-on widen.
func TestDiffMeshIdentity(t *testing.T) {
	src := filepath.Join("testdata", "check", "identity")
	before, after := t.TempDir(), t.TempDir()
	for dir, files := range map[string][]string{before: {"policies.yaml"}, after: {"policies.yaml", "identity.yaml"}} {
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(src, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	out, errOut, code := cli(t, "", "diff", before, after, "--fail-on", "widen")
	for _, w := range []string{"1 proxy group changes access (0 widens)", "those with labels k8s.kuma.io/namespace=shop",
		"MeshIdentity kuma-system/shop-identity selects them in the new set only", "- narrowed  kuma.io/service=web_shop_svc_80"} {
		if !strings.Contains(out, w) {
			t.Errorf("adding the MeshIdentity: output lacks %q\n%s%s", w, out, errOut)
		}
	}
	if code != 0 {
		t.Errorf("adding the MeshIdentity narrows only: exit %d, want 0", code)
	}
	out, _, code = cli(t, "", "diff", after, before, "--fail-on", "widen")
	if code != exitFindings || !strings.Contains(out, "+ widened   kuma.io/service=web_shop_svc_80") {
		t.Errorf("removing the MeshIdentity widens: exit %d, want %d\n%s", code, exitFindings, out)
	}
}
