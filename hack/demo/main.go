// Command demo runs meshguard the way a cluster runs it and shows what it does, with
// kubectl, in the terminal:
//
//	go run ./hack/demo            # or: make demo
//
// It starts a local control plane (kube-apiserver and etcd built from source into a
// per-machine cache the first time, 4 to 12 minutes on 2 cores, then reused; see
// docs/e2e.md), installs the chart in url mode with the real `meshguard serve` beside
// it, and then:
//
//   - applies examples/valid/ and shows what the mutating webhook stored (labels,
//     implied spec values) as a before/after diff;
//   - applies each file of examples/invalid/ and shows kubectl's denial, checking the
//     codes and field paths of its "# expect:" lines;
//   - dry-runs a MeshTrafficPermission and shows the RBAC preview warnings and the
//     rbac-preview audit annotation from the API server's audit log;
//   - applies a policy in a namespace nobody created (the control plane creates
//     namespaces on first use), as a user's first own policy would be;
//   - asks meshguard check whether two clients may call backend (one ALLOW, one
//     DENY) and shows the deciding policy and item with their file:line.
//
// It then prints a kubeconfig and a hint for trying more policies and waits for
// Ctrl-C (SIGINT or SIGTERM), after which it stops meshguard, kube-apiserver and
// etcd. With -no-wait it stops right after the tour (CI and the e2e test).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/meshguard/meshguard/e2e/localcp"
)

func main() {
	o := options{Out: os.Stdout, Color: colorTerminal(os.Stdout)}
	flag.StringVar(&o.Dir, "dir", "", "directory for the kubeconfig, audit log, certificates and logs (default .demo/ in the repository)")
	flag.BoolVar(&o.NoWait, "no-wait", false, "stop everything right after the tour instead of waiting for Ctrl-C")
	noColor := flag.Bool("no-color", false, "plain output even on a terminal (NO_COLOR is honoured too)")
	flag.Parse()
	if *noColor {
		o.Color = false
	}
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "demo: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	root, err := localcp.RepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(2)
	}
	o.Root = root
	if o.Dir == "" {
		o.Dir = filepath.Join(root, ".demo")
	}
	if o.Dir, err = filepath.Abs(o.Dir); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Output piped into `head` and closed early must not kill the demo before it
	// stops kube-apiserver, etcd and meshguard: writes then fail instead.
	signal.Ignore(syscall.SIGPIPE)
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		stop()
		os.Exit(1)
	}
}

// colorTerminal reports whether f is a terminal and NO_COLOR is unset.
func colorTerminal(f *os.File) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
