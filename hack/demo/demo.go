package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/e2e/crds"
	"github.com/meshguard/meshguard/e2e/localcp"
)

// options configure one run of the demo.
type options struct {
	// Root is the repository root; kubectl runs there so paths print short.
	Root string
	// Dir receives the kubeconfig, audit log, certificates and logs.
	Dir string
	// NoWait ends the demo after the tour instead of waiting for ctx to end.
	NoWait bool
	// Out receives everything the demo shows; Color adds ANSI colours to it.
	Out   io.Writer
	Color bool
}

// demo is one run: the stack, the terminal, and the checks that failed.
type demo struct {
	options
	p        *printer
	st       *localcp.Stack
	failures []string
}

// failf records a check that failed (the tour goes on; run reports them at the end).
func (d *demo) failf(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	d.failures = append(d.failures, msg)
	d.p.bad(msg)
}

// run starts the stack, shows the tour, waits for ctx to end unless NoWait, and
// stops everything. It fails when the stack does not start or when something the
// tour checks (an invalid example admitted, a missing warning…) went wrong.
func run(ctx context.Context, o options) error {
	d := &demo{options: o, p: &printer{w: o.Out, color: o.Color}}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return err
	}
	// A fresh meshguard log per run (the stack appends to it).
	_ = os.Remove(filepath.Join(o.Dir, "meshguard.log"))
	if _, err := exec.LookPath("kubectl"); err != nil {
		return errors.New("kubectl not found in PATH: the demo drives the API server with it")
	}

	stopStack, err := d.startStack(ctx)
	if err != nil {
		return err
	}
	defer stopStack()

	if err := d.namespaces(ctx); err != nil {
		return err
	}
	steps := []func(context.Context) error{d.valid, d.invalid, d.preview, d.diff, d.ownNamespace, d.check, d.inspect, d.accessMap}
	for _, step := range steps {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := step(ctx); err != nil {
			return err
		}
	}

	d.summary()
	if !o.NoWait {
		d.p.line("")
		d.p.line("Press Ctrl-C to stop meshguard and the control plane.")
		<-ctx.Done()
	}
	stopStack()
	if len(d.failures) > 0 {
		return fmt.Errorf("%d check(s) of the tour failed", len(d.failures))
	}
	return nil
}

// startStack starts the control plane and meshguard (building the control plane
// binaries on first use) and returns the function that stops them, which is safe
// to call more than once.
func (d *demo) startStack(ctx context.Context) (stop func(), err error) {
	d.p.heading("Starting a local control plane and meshguard")
	d.p.note("kube-apiserver and etcd come from a per-machine cache; the first run builds them from")
	d.p.note("source through the Go module proxy (4 to 12 minutes on 2 cores), later runs start in seconds.")
	start := time.Now()
	bin, err := localcp.EnsureBinaries(d.p.prefixed("  build: "))
	if err != nil {
		return nil, err
	}
	d.p.note("control plane binaries: %s", bin)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	// Kuma's own CRDs, so the API server refuses what a cluster running Kuma refuses.
	installed, err := crds.Installed(api.DefaultRegistry())
	if err != nil {
		return nil, err
	}
	st, err := localcp.Up(ctx, localcp.StackOptions{
		Dir:  d.Dir,
		CRDs: installed,
		Log:  d.p.prefixed("  · "),
	})
	if err != nil {
		return nil, err
	}
	d.st = st
	stopped := false
	stopStack := func() {
		if !stopped {
			stopped = true
			d.p.heading("Stopping")
			st.Down()
			d.p.note("meshguard, kube-apiserver and etcd stopped; logs kept in %s", d.Dir)
		}
	}
	d.p.note("up in %s", time.Since(start).Round(100*time.Millisecond))
	return stopStack, nil
}

// summary prints the tour's verdict: every failed check, or that all passed.
func (d *demo) summary() {
	d.p.heading("Summary")
	if len(d.failures) == 0 {
		d.p.good("every check of the tour passed")
	} else {
		for _, f := range d.failures {
			d.p.bad(f)
		}
	}
	d.p.line("")
	d.p.line("The cluster is yours to try: kubeconfig %s", d.st.CP.Kubeconfig)
	d.p.line("  %s", d.p.cmd(fmt.Sprintf("export KUBECONFIG=%s; kubectl apply -f your-policy.yaml", d.st.CP.Kubeconfig)))
	d.p.note("Policies may use any namespace: namespaces are created on first use (not by --dry-run=server).")
	d.p.note("meshguard log: %s   audit log: %s", d.st.Meshguard.LogPath, d.st.CP.AuditLog)
}

// kubectl runs kubectl against the stack, printing the command and its combined
// output (indented, warnings and errors coloured). It returns that output and
// whether kubectl exited 0.
func (d *demo) kubectl(ctx context.Context, args ...string) (string, bool) {
	return d.kubectlIn(ctx, nil, args...)
}

// kubectlIn is kubectl with stdin.
func (d *demo) kubectlIn(ctx context.Context, stdin []byte, args ...string) (string, bool) {
	d.p.line("%s", d.p.cmd("kubectl "+strings.Join(args, " ")))
	out, ok := d.kubectlQuiet(ctx, stdin, args...)
	d.p.output(out)
	return out, ok
}

// kubectlQuiet runs kubectl without printing anything.
func (d *demo) kubectlQuiet(ctx context.Context, stdin []byte, args ...string) (string, bool) {
	cmd := exec.CommandContext(ctx, "kubectl", args...)
	cmd.Dir = d.Root
	cmd.Env = append(os.Environ(), "KUBECONFIG="+d.st.CP.Kubeconfig)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	return buf.String(), err == nil
}

// ownPolicy is the tour's stand-in for a user's first own policy: valid, in a
// namespace that no example names, so the tour never created it.
const ownPolicy = `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: orders-timeouts
  namespace: orders-ns
spec:
  to:
    - targetRef:
        kind: MeshService
        name: orders
      default:
        idleTimeout: 30s
`

// ownNamespace applies ownPolicy: the local control plane runs kube-apiserver's
// NamespaceAutoProvision admission plugin, so the namespace is created on first use
// and what answers is meshguard, not "namespace not found".
func (d *demo) ownNamespace(ctx context.Context) error {
	d.p.heading("5. Your own policy, in a namespace nobody created")
	d.p.note("  the local control plane creates namespaces on first use (kube-apiserver's NamespaceAutoProvision)")
	out, ok := d.kubectlIn(ctx, []byte(ownPolicy), "apply", "-f", "-")
	if !ok || !strings.Contains(out, "meshtimeout.kuma.io/orders-timeouts") {
		d.failf("a valid policy in a namespace of its own (orders-ns) was not stored")
	}
	return nil
}

// namespaces creates every namespace the examples name, so that what the API server
// answers is meshguard's verdict and not "namespace not found".
func (d *demo) namespaces(ctx context.Context) error {
	set := map[string]bool{}
	for _, dir := range []string{"valid", "invalid"} {
		docs, err := readDocs(filepath.Join(d.Root, "examples", dir))
		if err != nil {
			return err
		}
		for _, doc := range docs {
			if ns := doc.namespace(); ns != "" {
				set[ns] = true
			}
		}
	}
	names := make([]string, 0, len(set))
	for ns := range set {
		names = append(names, ns)
	}
	sort.Strings(names)
	var yml strings.Builder
	for _, ns := range names {
		fmt.Fprintf(&yml, "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n", ns)
	}
	d.p.heading("Namespaces the examples use")
	d.p.note("  %d Namespace objects on stdin: %s", len(names), strings.Join(names, ", "))
	if _, ok := d.kubectlIn(ctx, []byte(yml.String()), "apply", "-f", "-"); !ok {
		return errors.New("creating the examples' namespaces failed")
	}
	return nil
}
