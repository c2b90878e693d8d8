package main

import (
	"context"
	"strings"
)

// checkCall is one `meshguard check` the tour runs on examples/valid, with the
// answer and exit code it must give.
type checkCall struct {
	what   string
	args   []string
	answer string
	code   int
}

// checkCalls ask who may call backend's proxy: the frontend, which backend's
// owner allows, and the ops console, which the mesh-wide deny keeps out.
var checkCalls = []checkCall{
	{"the frontend may call backend (its owner's policy allows it)", []string{"check", "examples/valid",
		"--from", "kuma.io/service=frontend_frontend-ns_svc_8080",
		"--to", "app=backend,kuma.io/service=backend_backend-ns_svc_8080", "--to-namespace", "backend-ns"}, "ALLOW", 0},
	{"the ops console may not (the mesh operator's deny decides)", []string{"check", "examples/valid",
		"--from", "kuma.io/service=ops-console_ops-ns_svc_8080",
		"--to", "app=backend,kuma.io/service=backend_backend-ns_svc_8080", "--to-namespace", "backend-ns"}, "DENY", 1},
}

// check runs meshguard check on the examples the tour applied: the answer, the
// policy and item that decide with their file:line, and the merged policies.
func (d *demo) check(ctx context.Context) error {
	d.p.heading("5. meshguard check: may this client call backend, and which policy decides?")
	d.p.note("  offline, from the same files: the decision is the compiled Envoy RBAC of backend's proxy, evaluated")
	for _, c := range checkCalls {
		d.p.sub(c.what)
		out, code, err := d.meshguard(ctx, c.args...)
		if err != nil {
			return err
		}
		if code != c.code || !strings.HasPrefix(out, c.answer+" ") {
			d.failf("meshguard check answered exit %d, want %s (exit %d)", code, c.answer, c.code)
		}
	}
	return nil
}
