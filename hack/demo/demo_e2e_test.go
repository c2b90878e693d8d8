//go:build e2e

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meshguard/meshguard/e2e/localcp"
)

// TestDemo runs `go run ./hack/demo -no-wait` in-process against a fresh directory:
// the tour's own checks must pass (valid examples stored with labels, every invalid
// example denied with its expected codes, preview warnings and audit annotation),
// the terminal output must show each part, and no process may be left behind.
func TestDemo(t *testing.T) {
	root, err := localcp.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var buf bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	err = run(ctx, options{Root: root, Dir: dir, NoWait: true, Out: io.MultiWriter(&buf, t.Output())})
	if err != nil {
		t.Fatalf("demo: %v", err)
	}
	out := buf.String()
	for _, want := range []string{
		"$ kubectl apply -f examples/valid/",
		"meshtimeout.kuma.io/backend-timeouts created",
		"+kuma.io/policy-role=producer",
		"+   targetRef:",
		"is invalid",
		"[MG101]",
		"$ kubectl apply --dry-run=server -f",
		"Warning: RBAC",
		"(server dry run)",
		"rbac-preview",
		`"previews"`,
		"rbac-diff: widens access to Dataplanes app=backend in backend-ns for kuma.io/service=ops-console_ops-ns_svc_8080",
		" diff --fail-on widen examples/valid/ ",
		"+ widened   kuma.io/service=ops-console_ops-ns_svc_8080",
		"meshtimeout.kuma.io/orders-timeouts created",
		"namespaces are created on first use",
		"5. meshguard check",
		"    ALLOW  kuma.io/service=frontend_frontend-ns_svc_8080",
		"    DENY  kuma.io/service=ops-console_ops-ns_svc_8080",
		"decided by: MeshTrafficPermission kuma-system/mesh-deny-default spec.from[0]",
		"6. meshguard inspect",
		"http.requestTimeout: 2s  ← web-to-backend.shop spec.to[0], over mesh-defaults.kuma-system spec.to[0]",
		"http.numRetries: 3  ← retry-backend.shop spec.to[0]",
		"~ MeshTimeout connectionTimeout: 5s → 2s on the outbound to MeshService shop/backend port http of 5 proxies",
		"7. meshguard map",
		mapShows,
		"the access map is written to " + filepath.Join(dir, mapFile),
		"export KUBECONFIG=" + filepath.Join(dir, "kubeconfig"),
		"every check of the tour passed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	files, _ := filepath.Glob(filepath.Join(root, "examples", "invalid", "*.yaml"))
	for _, f := range files {
		if !strings.Contains(out, "kubectl apply -f examples/invalid/"+filepath.Base(f)) {
			t.Errorf("demo did not apply %s", f)
		}
	}
	if left := processesMentioning(dir); len(left) > 0 {
		t.Errorf("processes left behind after the demo:\n%s", strings.Join(left, "\n"))
	}
}

// processesMentioning lists the command lines of running processes that contain s
// (kube-apiserver's audit log path and meshguard's kubeconfig are under the demo dir).
func processesMentioning(s string) []string {
	var out []string
	pids, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range pids {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		cl := strings.ReplaceAll(string(b), "\x00", " ")
		if strings.Contains(cl, s) {
			out = append(out, filepath.Base(filepath.Dir(p))+": "+cl)
		}
	}
	return out
}
