//go:build e2e

// Package e2e tests meshguard through a real Kubernetes API server, the way users meet
// it: installed from charts/meshguard, driven with client-go and kubectl. By default
// it starts a local control plane (e2e/localcp); with -kubeconfig it runs against an
// existing cluster where meshguard was installed with helm (make e2e-kind).
package e2e

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/e2e/crds"
	"github.com/meshguard/meshguard/e2e/localcp"
	"github.com/meshguard/meshguard/lint"
)

var keepFlag = flag.Bool("keep", false, "leave the local control plane's directory (logs, audit log) in place")

// clusterKubeconfig is -kubeconfig: an existing cluster where meshguard was installed
// with helm (make e2e-kind). controller-runtime already registers that flag, so it
// is read from the flag set rather than declared twice.
func clusterKubeconfig() string {
	if f := flag.Lookup("kubeconfig"); f != nil {
		return f.Value.String()
	}
	return ""
}

// suite is what every test uses: a client, the kubeconfig for kubectl, and (local
// mode only) the stack, to restart meshguard and read the audit log.
type suite struct {
	kubeconfig string
	client     client.Client
	stack      *localcp.Stack
	dir        string
}

var env suite

// Rotation settings of the local meshguard: a one-minute serving certificate renewed
// when less than 45s are left, checked every 2s, so the suite sees real rotations.
var serveArgs = []string{"--cert-validity", "1m", "--rotation-lookahead", "45s", "--rotation-check-interval", "2s"}

func TestMain(m *testing.M) {
	if flag.Lookup("kubeconfig") == nil {
		flag.String("kubeconfig", "", "use this cluster, where meshguard is already installed with helm, instead of a local control plane")
	}
	flag.Parse()
	code, err := setup(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e setup:", err)
		code = 1
	}
	os.Exit(code)
}

func setup(m *testing.M) (int, error) {
	ctx := context.Background()
	// envtest's and the suite's clients log through controller-runtime's logger;
	// unset, controller-runtime prints a stack trace after 30 s (a slow start).
	ctrllog.SetLogger(logr.Discard())
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return 1, err
	}
	if kc := clusterKubeconfig(); kc != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", kc)
		if err != nil {
			return 1, err
		}
		c, err := client.New(cfg, client.Options{Scheme: scheme})
		if err != nil {
			return 1, err
		}
		env = suite{kubeconfig: kc, client: c}
		return m.Run(), nil
	}
	dir, err := os.MkdirTemp("", "meshguard-e2e-")
	if err != nil {
		return 1, err
	}
	installed, err := crds.Installed(api.DefaultRegistry())
	if err != nil {
		return 1, err
	}
	st, err := localcp.Up(ctx, localcp.StackOptions{Dir: dir, CRDs: installed, ServeArgs: serveArgs, Log: os.Stderr})
	if err != nil {
		return 1, fmt.Errorf("%w (files in %s)", err, dir)
	}
	env = suite{kubeconfig: st.CP.Kubeconfig, client: st.Client, stack: st, dir: dir}
	// An interrupted run (Ctrl-C, CI cancelling) must not leave kube-apiserver,
	// etcd or meshguard behind.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		st.Down()
		os.Exit(2)
	}()
	code := m.Run()
	st.Down()
	if code != 0 || *keepFlag {
		fmt.Fprintf(os.Stderr, "e2e files (meshguard.log, audit.log, kubeconfig) kept in %s\n", dir)
	} else {
		os.RemoveAll(dir)
	}
	return code, nil
}

// meshguardBin is the meshguard binary the suite's stack runs (built once by
// localcp.Up), for tests that run the CLI against the cluster; in -kubeconfig
// mode, where there is no local stack, it builds one.
func meshguardBin(t *testing.T) string {
	t.Helper()
	if env.stack != nil {
		return env.stack.Meshguard.Bin
	}
	bin, err := localcp.BuildMeshguard(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// local skips tests that need the local stack (restarts, the audit log file).
func local(t *testing.T) *localcp.Stack {
	t.Helper()
	if env.stack == nil {
		t.Skip("needs the local control plane (restarts meshguard, reads the audit log)")
	}
	return env.stack
}

// kubectl runs the real kubectl against the suite's cluster.
func kubectl(t *testing.T, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", env.kubeconfig}, args...)...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	err = cmd.Run()
	t.Logf("$ kubectl %s\n%s%s", strings.Join(args, " "), o.String(), e.String())
	return o.String(), e.String(), err
}

// namespaces creates the namespaces the given objects live in.
func namespaces(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	seen := map[string]bool{}
	for _, o := range objs {
		if ns := o.GetNamespace(); ns != "" && !seen[ns] {
			seen[ns] = true
			if err := localcp.EnsureNamespace(context.Background(), env.client, ns); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// load reads example files into objects.
func load(t *testing.T, paths ...string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, d := range lint.Load(paths, nil) {
		if d.Err != nil {
			t.Fatalf("%s: %v", d.File, d.Err)
		}
		out = append(out, d.Object)
	}
	return out
}

func repo(rel string) string { return filepath.Join("..", rel) }

// get reads a Kuma object back from the API server.
func get(t *testing.T, kind, ns, name string) *unstructured.Unstructured {
	t.Helper()
	return get2(t, "kuma.io/v1alpha1", kind, ns, name)
}

// get2 reads any object back from the API server.
func get2(t *testing.T, apiVersion, kind, ns, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	if err := env.client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		t.Fatalf("get %s %s/%s: %v", kind, ns, name, err)
	}
	return u
}
