// Package localcp runs a real Kubernetes control plane (kube-apiserver and etcd built
// from source, see hack/build-control-plane.sh) on loopback, with an audit log, and
// meshguard beside it as a process. The e2e suite and `make demo` share it, so the
// demo shows exactly what the tests check. It needs no Docker.
package localcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// auditPolicy records every kuma.io request at Metadata level, which is the level
// that carries admission audit annotations such as meshguard's rbac-preview.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
    resources:
      - group: kuma.io
  - level: None
`

// Options configure the control plane.
type Options struct {
	// Dir receives the kubeconfig and the audit log; it is created if missing.
	Dir string
	// BinDir holds kube-apiserver and etcd; empty means "build or reuse the cache"
	// through hack/build-control-plane.sh.
	BinDir string
	// CRDs are installed before Start returns.
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// Output receives the control plane's own logs (nil discards them).
	Output io.Writer
}

// ControlPlane is a running kube-apiserver + etcd.
type ControlPlane struct {
	env        *envtest.Environment
	Config     *rest.Config
	Kubeconfig string
	AuditLog   string
}

// RepoRoot finds the repository root from the working directory (tests run in their
// package directory, the demo from the root).
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "hack", "build-control-plane.sh")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("repository root (with hack/build-control-plane.sh) not found above the working directory")
		}
		dir = parent
	}
}

// EnsureBinaries returns the directory with kube-apiserver and etcd: $MESHGUARD_CP_BIN
// when set, else the per-machine cache, building it on first use (minutes, once).
func EnsureBinaries(log io.Writer) (string, error) {
	if d := os.Getenv("MESHGUARD_CP_BIN"); d != "" {
		return d, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	cmd := exec.Command("bash", filepath.Join(root, "hack", "build-control-plane.sh"))
	cmd.Stderr = log
	if log == nil {
		cmd.Stderr = io.Discard
	}
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("building the control plane binaries: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Start launches etcd and kube-apiserver with audit logging, installs the CRDs and
// writes an admin kubeconfig to Dir. Call Stop to tear everything down.
func Start(o Options) (*ControlPlane, error) {
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	bin := o.BinDir
	if bin == "" {
		var err error
		if bin, err = EnsureBinaries(o.Output); err != nil {
			return nil, err
		}
	}
	policy := filepath.Join(o.Dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o644); err != nil {
		return nil, err
	}
	cp := &ControlPlane{AuditLog: filepath.Join(o.Dir, "audit.log"), Kubeconfig: filepath.Join(o.Dir, "kubeconfig")}
	_ = os.Remove(cp.AuditLog)
	env := &envtest.Environment{
		BinaryAssetsDirectory:    bin,
		CRDs:                     o.CRDs,
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	if o.Output != nil {
		env.AttachControlPlaneOutput = true
		env.ControlPlane.APIServer = &envtest.APIServer{Out: o.Output, Err: o.Output}
	}
	configureAPIServer(env.ControlPlane.GetAPIServer().Configure(), policy, cp.AuditLog)
	cfg, err := env.Start()
	if err != nil {
		return nil, fmt.Errorf("starting kube-apiserver and etcd: %w", err)
	}
	cp.env, cp.Config = env, cfg
	user, err := env.ControlPlane.AddUser(envtest.User{Name: "meshguard-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		_ = cp.Stop()
		return nil, err
	}
	kc, err := user.KubeConfig()
	if err != nil {
		_ = cp.Stop()
		return nil, err
	}
	if err := os.WriteFile(cp.Kubeconfig, kc, 0o600); err != nil {
		_ = cp.Stop()
		return nil, err
	}
	return cp, nil
}

// ServiceAccountUser is the user name the API server gives a ServiceAccount's
// token; RBAC bindings to the ServiceAccount match it.
func ServiceAccountUser(namespace, name string) string {
	return fmt.Sprintf("system:serviceaccount:%s:%s", namespace, name)
}

// WriteServiceAccountKubeconfig writes to path a kubeconfig that authenticates as
// the ServiceAccount namespace/name, with the groups a ServiceAccount token carries,
// by a client certificate of the control plane's CA: a process using it gets exactly
// the RBAC bound to that ServiceAccount, as it would in a pod.
func (c *ControlPlane) WriteServiceAccountKubeconfig(namespace, name, path string) error {
	user, err := c.env.ControlPlane.AddUser(envtest.User{
		Name:   ServiceAccountUser(namespace, name),
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
	}, nil)
	if err != nil {
		return err
	}
	kc, err := user.KubeConfig()
	if err != nil {
		return err
	}
	return os.WriteFile(path, kc, 0o600)
}

// autoProvision is the kube-apiserver admission plugin that creates a missing
// namespace on the first object created in it.
const autoProvision = "NamespaceAutoProvision"

// configureAPIServer sets the flags Start adds to envtest's kube-apiserver defaults:
// the audit log, and the NamespaceAutoProvision admission plugin, so that an object
// in a namespace nobody created (a demo user's first own policy in orders-ns, say)
// is stored, its namespace created on first use, instead of being refused with
// `namespaces "orders-ns" not found`. --enable-admission-plugins adds to
// kube-apiserver's default-on plugins rather than replacing them, and envtest's
// default --disable-admission-plugins=ServiceAccount stays (it is not set here, so
// the default applies); kube-apiserver orders plugins itself, NamespaceAutoProvision
// before NamespaceLifecycle. It creates nothing for dry-run requests.
func configureAPIServer(args *envtest.Arguments, auditPolicyFile, auditLog string) *envtest.Arguments {
	return args.
		Set("audit-policy-file", auditPolicyFile).
		Set("audit-log-path", auditLog).
		Set("audit-log-mode", "blocking").
		Set("enable-admission-plugins", autoProvision)
}

// Stop ends kube-apiserver and etcd and removes their temporary data.
func (c *ControlPlane) Stop() error {
	if c == nil || c.env == nil {
		return nil
	}
	return c.env.Stop()
}

// WaitFor polls cond until it is true or ctx ends.
func WaitFor(ctx context.Context, every time.Duration, cond func() (bool, error)) error {
	var last error
	for {
		ok, err := cond()
		if ok {
			return nil
		}
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			if last != nil {
				return fmt.Errorf("%w (last error: %v)", ctx.Err(), last)
			}
			return ctx.Err()
		case <-time.After(every):
		}
	}
}
